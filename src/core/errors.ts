// The error the core throws and every surface renders: a code, a status hint and details. It lives
// in the core so that route() and the guards can refuse a call without importing a surface; each
// surface turns it into its own answer (src/surfaces/http.ts: the client's wire format or the spec's
// { error: { code, message, details? }, request_id }).

export interface ErrorDetails {
  parameter: string;
  provided?: unknown;
  expected: string;
}

/** One candidate's failure, listed when every candidate failed (a hosted relay names them all). */
export interface FailedAttempt {
  model: string;
  provider: string;
  status: number;
  message: string;
}

export class CoreError extends Error {
  override name = "CoreError";
  constructor(
    /** The HTTP status a surface answers with; other callers read it as the error's class. */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {
      details?: ErrorDetails;
      suggestions?: string[];
      /** Seconds, sent as Retry-After. */
      retryAfter?: number;
      headers?: Record<string, string>;
      /** Vendor's own error type, kept when relaying a vendor error. */
      vendorType?: string;
      /** Set when every candidate was tried and each failed in a way another attempt could fix (not a vendor's final answer). */
      attempts?: FailedAttempt[];
    } = {},
  ) {
    super(message);
  }
}
