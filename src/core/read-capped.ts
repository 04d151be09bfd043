// Reads a byte stream to text with a cap: refused up front when the declared
// length is over it, or as soon as the bytes read pass it, so nobody can make
// Relay buffer more than the cap. Used for client bodies and vendor answers.
import { concatBytes } from "./bytes.ts";

export class TooLarge extends Error {
  override name = "TooLarge";
}

/**
 * Not an async function: the common case (a declared length) returns the runtime's own promise,
 * one tick cheaper. Over the cap it rejects with `tooLarge(detail)`, by default a TooLarge.
 */
export function readCapped(source: Request | Response, cap: number, tooLarge: (detail: string) => Error = tooLargeError): Promise<string> {
  const declaredLength = Number(source.headers.get("content-length"));
  // A declared length within the cap bounds the read already: use the runtime's native path.
  // Checked before touching `.body`, which makes the runtime build a ReadableStream (a few dozen
  // objects and closures) that text() never needs.
  if (declaredLength > 0 && declaredLength <= cap) return source.text();
  const body = source.body;
  if (declaredLength > cap) {
    void body?.cancel().catch(() => {});
    return Promise.reject(tooLarge(`${declaredLength} bytes declared, over the ${cap}-byte limit`));
  }
  if (!body) return Promise.resolve("");
  return readChunks(body, cap, tooLarge);
}

const tooLargeError = (detail: string): Error => new TooLarge(detail);

async function readChunks(body: ReadableStream<Uint8Array>, cap: number, tooLarge: (detail: string) => Error): Promise<string> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      void reader.cancel().catch(() => {});
      throw tooLarge(`over the ${cap}-byte limit`);
    }
    parts.push(value);
  }
  return new TextDecoder().decode(concatBytes(parts));
}
