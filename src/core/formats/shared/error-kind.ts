// Format-neutral error classification by HTTP status, used when a vendor body
// says nothing more specific (the Ollama codec uses it too).
import type { ErrorKind } from "../../ir.ts";

export function errorKindForStatus(status: number): ErrorKind {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request";
    case 401:
      return "authentication";
    case 403:
      return "permission";
    case 404:
      return "not_found";
    case 408:
    case 504:
      return "timeout";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit";
    case 503:
    case 529:
      return "overloaded";
    default:
      return status >= 400 && status < 500 ? "invalid_request" : "api_error";
  }
}

/** Seconds from a `Retry-After` header given in seconds (the form vendors use). */
export function retryAfterHeader(headers?: Headers): number | undefined {
  const raw = headers?.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
