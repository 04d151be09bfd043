// Request bodies are read with a byte cap: an oversized body is refused from
// its Content-Length without reading it, or as soon as a chunked body passes
// the cap, so a client cannot make Relay buffer more than the limit.
import { HttpError } from "./http.ts";

export const bodyTooLarge = () => new HttpError(500, "request_too_large", "Request body too large");

export async function readBody(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) {
    void request.body?.cancel().catch(() => {});
    throw bodyTooLarge();
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** Parse a JSON object body; anything else is the spec's 400 "Invalid JSON". */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_request", "Invalid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpError(400, "invalid_request", "Invalid JSON", { details: { parameter: "body", expected: "object" } });
  }
  return value as Record<string, unknown>;
}
