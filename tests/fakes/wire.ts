/** Minimal wire readers for the fakes' own tests (independent of src/ parsers). */

export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits a complete SSE body into events (blank-line separated; LF or CRLF). */
export function parseSse(body: string): SseEvent[] {
  return body
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim();
      const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      return { event, data };
    });
}

export function parseNdjson(body: string): any[] {
  return body
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/** Reads a response body one network read at a time, returning the decoded reads. */
export async function readAll(res: Response): Promise<string[]> {
  const reads: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) reads.push(decoder.decode(chunk, { stream: true }));
  return reads;
}

/** Polls until `check` holds (no timing assertion: it only bounds the wait). */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await Bun.sleep(10);
  }
  return true;
}
