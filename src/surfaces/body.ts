// Request bodies are read with a byte cap: an oversized body is refused from
// its Content-Length without reading it, or as soon as a chunked body passes
// the cap, so a client cannot make Relay buffer more than the limit.
import { readCapped } from "../core/read-capped.ts";
import { CoreError } from "../core/errors.ts";

export const bodyTooLarge = () => new CoreError(500, "request_too_large", "Request body too large");

/** Not an async wrapper: a body with a declared length is read by the runtime's own promise. */
export function readBody(request: Request, limit: number): Promise<string> {
  return readCapped(request, limit, bodyTooLarge);
}
