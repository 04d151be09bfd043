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

export interface FailureClass {
  retryable: boolean;
  vendorSide: boolean;
  /** Short machine-readable cause, e.g. "http_503", "timeout", "connection_error:ECONNRESET". */
  reason: string;
}

/** Socket-level error codes from Node, undici and Bun. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
]);

export function classifyFailure(f: { status?: number; error?: unknown }): FailureClass {
  if (f.status !== undefined && f.status >= 400) return classifyStatus(f.status);
  if (f.error !== undefined) return classifyError(f.error);
  return { retryable: false, vendorSide: false, reason: `http_${f.status ?? "unknown"}` };
}

function classifyStatus(status: number): FailureClass {
  const reason = `http_${status}`;
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
  if (code !== undefined && NETWORK_CODES.has(code)) {
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
