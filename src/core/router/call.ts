// What route() takes: a chat request and who is asking. Every surface builds one (the proxy from an
// HTTP request; the hosted API and the workflow engine from their own input) and nothing in it is
// HTTP's: the headers are data the caller forwards, the signal any AbortSignal.
import type { WireFormat } from "../../plugin/api.ts";
import type { ChatRequest } from "../ir.ts";

/** The wire formats a call can arrive in and be answered in. */
export type CallFormat = Extract<WireFormat, "openai" | "anthropic" | "responses" | "gemini">;

/** API keys by provider name. */
export type ProviderKeys = Readonly<Record<string, string>>;

/** Who is asking. */
export interface Caller {
  /** The surface that made the call ("proxy", "hosted", "workflow"): named in the log when the call fails unexpectedly. */
  surface: string;
  /** The session the call belongs to (an administrator can end one; the run log groups by it). */
  session?: string;
  /** Free-form tracking data, kept on the run record. */
  metadata?: Record<string, unknown>;
  /** The hosted team the call is made for (its id): the run is that team's, shown in its request log and kept for its plan's retention. */
  team?: string;
  /**
   * Keys by provider name that this call uses in place of Relay's own (a hosted team's stored
   * credentials, src/core/tenancy/credentials.ts); a provider with one counts as keyed, and its
   * values are scrubbed from vendor texts like Relay's keys.
   */
  credentials?: ProviderKeys;
  /**
   * What the caller forwards besides the body: vendor options a provider reads (anthropic-version,
   * anthropic-beta), a client's own vendor credential, Relay's loop mark (x-relay-via).
   */
  headers?: Headers;
  /** Where the call arrived, when it arrived over a network: a loop's message names the setting that points there. */
  url?: string;
}

interface CallBase {
  /** The format of the request and of the answer (a whole one, or the stream's framing). */
  format: CallFormat;
  caller: Caller;
  /** Ends the call: its vendor call is aborted and the run is logged as cancelled. */
  signal?: AbortSignal;
  /** The run's id (a surface that already answered with one passes it); made when absent. */
  id?: string;
  /** performance.now() when the call arrived; now when absent. */
  start?: number;
  /** Date.now() when the call arrived: the run's timestamp; now when absent. */
  at?: number;
  /**
   * A concrete model asked for must be one whose provider speaks `format` natively; another is
   * refused with this message (the proxy's /v1/messages). A virtual model's strategy may still
   * route the call to any vendor, translated.
   */
  nativeOnly?: string;
}

/**
 * A call holds the request either in its wire format (`body`, and its bytes when the caller has
 * them: sent on as they are to a vendor of the same format) or decoded already (`request`). The two
 * may differ on purpose: a Responses turn continuing a stored conversation routes the conversation
 * rebuilt (`body`) but keeps the client's own bytes for the vendor that holds it (`rawBody`).
 */
export type RouteCall = CallBase & ({ body: Record<string, unknown>; rawBody?: string; request?: never } | { request: ChatRequest; body?: never; rawBody?: never });

/** A call with its defaults filled in: what a run reads. */
export interface Call {
  id: string;
  start: number;
  at: number;
  format: CallFormat;
  caller: Caller;
  headers: Headers;
  signal: AbortSignal | undefined;
  nativeOnly: string | undefined;
  /** The request in its wire format, when it came that way. */
  body: Record<string, unknown> | undefined;
  rawBody: string | undefined;
}
