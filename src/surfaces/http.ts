// HTTP plumbing shared by every surface: the error bodies that render the core's CoreError
// (src/core/errors.ts). Proxy errors are answered in the client's own wire format so
// the official SDKs parse them; other routes use the spec's shape (§2.6):
// { error: { code, message, details? }, request_id }.

import type { CoreError } from "../core/errors.ts";
import type { CallFormat } from "../core/router/call.ts";
import { encodeRelayError } from "../core/formats/gemini/errors.ts";

export type ErrorStyle = "anthropic" | "openai" | "gemini" | "spec";

/** The error shape of a call's wire format: the Responses API answers errors as OpenAI's other routes do. */
export const errorStyleOf = (format: CallFormat): ErrorStyle => (format === "responses" ? "openai" : format);

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  529: "overloaded_error",
};

function openaiType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function errorBody(err: CoreError, requestId: string, style: ErrorStyle): Record<string, unknown> {
  const { details, suggestions, vendorType } = err.extra;
  if (style === "anthropic") {
    return {
      type: "error",
      error: { type: vendorType ?? ANTHROPIC_TYPES[err.status] ?? "api_error", message: err.message, code: err.code, ...(details ? { details } : {}) },
      ...(suggestions ? { suggestions } : {}),
      request_id: requestId,
    };
  }
  if (style === "gemini") return { ...encodeRelayError(err), ...(suggestions ? { suggestions } : {}), request_id: requestId };
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (style === "openai") {
    error.type = vendorType ?? openaiType(err.status);
    error.param = details?.parameter ?? null;
  }
  if (details) error.details = details;
  // The hosted shape lists each candidate's failure when every one failed (/api/relay).
  if (style === "spec" && err.extra.attempts) error.attempts = err.extra.attempts;
  return { error, ...(suggestions ? { suggestions } : {}), request_id: requestId };
}

export function errorResponse(err: CoreError, requestId: string, style: ErrorStyle): Response {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-svc-request-id": requestId,
    ...err.extra.headers,
  };
  if (err.extra.retryAfter !== undefined) headers["retry-after"] = String(Math.max(0, Math.ceil(err.extra.retryAfter)));
  return new Response(JSON.stringify(errorBody(err, requestId, style)), { status: err.status, headers });
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
