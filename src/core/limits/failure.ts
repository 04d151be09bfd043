// Classifies an upstream failure for the router: `retryable` = worth another
// attempt (same or next model in the chain); `vendorSide` = evidence the
// provider itself is unhealthy, so it counts toward cooldown.
//
// Choices worth knowing:
// - 429 counts toward cooldown. It is the vendor's own limit, not an outage,
//   but repeated 429s mean the provider will keep refusing us for a while;
//   cooling it down sends traffic to fallbacks instead of burning attempts.
// - 409 is retryable (vendors use it for transient conflicts such as lock
//   timeouts) but says nothing about provider health, so it is not vendor-side.
// - An abort is a timeout only when its reason is a TimeoutError (what
//   AbortSignal.timeout produces); any other abort is the client going away.
// - An unrecognised exception is treated as our own bug: not retried, not
//   blamed on the vendor.

import type { IRError } from "../ir.ts";

export interface FailureClass {
  retryable: boolean;
  vendorSide: boolean;
  /** Short machine-readable cause, e.g. "http_503", "timeout", "connection_error:ECONNRESET". */
  reason: string;
}

/**
 * Socket-level error codes from Node, undici and Bun, with the words a client is told. A vendor that
 * refuses, resets, or answers with bytes that are not HTTP (Bun's Malformed_HTTP_Response, llhttp's
 * HPE_* codes) is as unusable as one that is down: every one of these is retryable and vendor-side.
 */
const NETWORK_CAUSES = new Map<string, string>([
  ["ECONNREFUSED", "connection refused"],
  ["ConnectionRefused", "connection refused"],
  ["FailedToOpenSocket", "could not open a connection"],
  ["ECONNRESET", "connection reset"],
  ["ECONNABORTED", "connection reset"],
  ["EPIPE", "connection reset"],
  ["ConnectionClosed", "connection closed"],
  ["UND_ERR_SOCKET", "connection closed"],
  ["ETIMEDOUT", "connection timed out"],
  ["UND_ERR_CONNECT_TIMEOUT", "connection timed out"],
  ["ENOTFOUND", "host not found"],
  ["EAI_AGAIN", "host not found"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ENETUNREACH", "network unreachable"],
  ["Malformed_HTTP_Response", "the answer is not HTTP"],
  ["EPROTO", "TLS handshake failed"],
  ["ERR_TLS_CERT_ALTNAME_INVALID", "TLS certificate rejected"],
  ["CERT_HAS_EXPIRED", "TLS certificate rejected"],
  ["DEPTH_ZERO_SELF_SIGNED_CERT", "TLS certificate rejected"],
  ["SELF_SIGNED_CERT_IN_CHAIN", "TLS certificate rejected"],
  ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "TLS certificate rejected"],
  ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "TLS certificate rejected"],
]);
/** llhttp (Node, undici) names every HTTP parse error HPE_*: the peer's bytes are not HTTP. */
const NOT_HTTP_PREFIX = "HPE_";

function networkCause(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  return NETWORK_CAUSES.get(code) ?? (code.startsWith(NOT_HTTP_PREFIX) ? "the answer is not HTTP" : undefined);
}

export function classifyFailure(f: { status?: number; error?: unknown }): FailureClass {
  if (f.status !== undefined && f.status >= 400) return classifyStatus(f.status);
  if (f.error !== undefined) return classifyError(f.error);
  return { retryable: false, vendorSide: false, reason: `http_${f.status ?? "unknown"}` };
}

/**
 * Whether a vendor's error answer says the model it was asked for does not exist (or is not open to
 * the key): a 404 in the vendor's own error shape (so a typed vendorError, not a wrong base URL's
 * bare page) that names the model — Anthropic's not_found_error "model: <id>", OpenAI's
 * model_not_found "The model `<id>` does not exist…", Gemini's NOT_FOUND "models/<id> is not found…".
 * A 404 is never counted toward cooldown (classifyStatus): it is the name that is wrong, not the vendor.
 */
export function isUnknownModelAnswer(f: { status: number; message: string; vendorError?: IRError }, modelId: string): boolean {
  if (f.status !== 404 || f.vendorError?.vendorType === undefined) return false;
  return f.vendorError.vendorType === "model_not_found" || f.message.toLowerCase().includes(modelId.toLowerCase());
}

function classifyStatus(status: number): FailureClass {
  const reason = `http_${status}`;
  // 508 Loop Detected: a base URL points back at a Relay (see loop-guard.ts); a configuration fault,
  // so neither a retry nor a cooldown can help, and the client must see it.
  if (status === 508) return { retryable: false, vendorSide: false, reason };
  if (status === 408 || status === 429 || status >= 500) return { retryable: true, vendorSide: true, reason };
  if (status === 409) return { retryable: true, vendorSide: false, reason };
  return { retryable: false, vendorSide: false, reason };
}

function classifyError(error: unknown): FailureClass {
  const name = errorName(error);
  if (name === "TimeoutError" || (name === "AbortError" && errorName(causeOf(error)) === "TimeoutError")) {
    return { retryable: true, vendorSide: true, reason: "timeout" };
  }
  if (name === "AbortError") return { retryable: false, vendorSide: false, reason: "cancelled" };
  const code = errorCode(error) ?? errorCode(causeOf(error));
  if (networkCause(code) !== undefined) {
    return { retryable: true, vendorSide: true, reason: `connection_error:${code}` };
  }
  // undici reports every network failure as TypeError("fetch failed") with the detail in `cause`.
  if (error instanceof TypeError && error.message === "fetch failed") {
    return { retryable: true, vendorSide: true, reason: "connection_error" };
  }
  return { retryable: false, vendorSide: false, reason: "unknown_error" };
}

function errorName(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "name" in e && typeof e.name === "string" ? e.name : undefined;
}

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined;
}

function causeOf(e: unknown): unknown {
  return typeof e === "object" && e !== null && "cause" in e ? e.cause : undefined;
}

/**
 * What a failed vendor call tells the client: the provider and the cause in words ("openai: connection
 * refused"), never the runtime's message, which can carry the vendor's URL (Bun: `Malformed_HTTP_Response
 * fetching "http://…"`). `describeFailureDetail` keeps the rest for the log.
 */
export function describeVendorFailure(provider: string, error: unknown): string {
  const name = errorName(error);
  if (name === "TimeoutError") return `${provider}: ${errorMessage(error) ?? "vendor timed out"}`;
  if (name === "AbortError") return `${provider}: call cancelled`;
  const code = errorCode(error) ?? errorCode(causeOf(error));
  return `${provider}: ${networkCause(code) ?? (code ? `connection failed (${code})` : "vendor call failed")}`;
}

// Module-level: a URL in a runtime's error text (Bun quotes the whole request URL, query included).
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>]+/gi;

/** The runtime's own words about a failure, for the log: each URL cut to its origin (no path, no query-string key). */
export function describeFailureDetail(error: unknown): string {
  const code = errorCode(error) ?? errorCode(causeOf(error));
  const message = (errorMessage(error) ?? String(error)).replace(URL_IN_TEXT, originOf);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "<url>";
  }
}

function errorMessage(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "message" in e && typeof e.message === "string" ? e.message : undefined;
}

/**
 * Seconds the vendor asks us to wait, from (in order of precision)
 * `retry-after-ms`, `Retry-After` (delta-seconds or HTTP-date), or OpenAI's
 * `x-ratelimit-reset-requests` / `-tokens` durations ("1s", "6m0s", "20ms";
 * the later of the two). May be fractional; never negative; capped at `maxSec`
 * so a hostile or broken header cannot park a request indefinitely.
 */
export function parseRetryAfter(headers: Headers, nowMs: number, maxSec: number): number | undefined {
  const seconds = retryAfterSeconds(headers, nowMs);
  return seconds === undefined ? undefined : Math.min(Math.max(0, seconds), maxSec);
}

function retryAfterSeconds(headers: Headers, nowMs: number): number | undefined {
  const ms = parseNumber(headers.get("retry-after-ms"));
  if (ms !== undefined) return ms / 1000;
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null) {
    const delta = parseNumber(retryAfter);
    if (delta !== undefined) return delta;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return (date - nowMs) / 1000;
  }
  const resets = [headers.get("x-ratelimit-reset-requests"), headers.get("x-ratelimit-reset-tokens")]
    .map(parseDuration)
    .filter((s): s is number => s !== undefined);
  return resets.length === 0 ? undefined : Math.max(...resets);
}

function parseNumber(v: string | null): number | undefined {
  if (v === null || !/^\s*\d+(\.\d+)?\s*$/.test(v)) return undefined;
  return Number(v);
}

const DURATION = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/** Go-style duration ("1h2m3.5s", "6m0s", "20ms") to seconds. */
function parseDuration(v: string | null): number | undefined {
  const m = v === null ? null : DURATION.exec(v.trim());
  if (m === null || m.slice(1).every((part) => part === undefined)) return undefined;
  const [h, min, s, ms] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  return h * 3600 + min * 60 + s + ms / 1000;
}
