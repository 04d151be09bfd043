import { EventTooLarge } from "./sse.ts";
import type { RawStreamEvent } from "./types.ts";

/**
 * Incremental newline-delimited JSON splitter: one raw event per non-empty line, of at most
 * `maxLine` characters (EventTooLarge past it). Only each new chunk is searched; an unfinished
 * line grows by concatenation and is read once, when it ends (see SseParser).
 */
export class NdjsonParser {
  private buf = "";
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxLine = Infinity) {}

  /** Characters held for the line not yet complete. */
  get held(): number {
    return this.buf.length;
  }

  push(chunk: Uint8Array | string): RawStreamEvent[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: RawStreamEvent[] = [];
    // Lines are read in place; only the unfinished last one is kept.
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      this.emit(this.buf === "" ? text.slice(start, nl) : this.buf + text.slice(start, nl), out);
      this.buf = "";
      start = nl + 1;
    }
    if (start < text.length) this.buf += start === 0 ? text : text.slice(start);
    if (this.buf.length > this.maxLine) throw new EventTooLarge(this.maxLine);
    return out;
  }

  /** Forget the unfinished line (its stream was cut). */
  clear(): void {
    this.buf = "";
  }

  end(): RawStreamEvent[] {
    const out: RawStreamEvent[] = [];
    this.emit(this.buf + this.decoder.decode(), out);
    this.buf = "";
    return out;
  }

  private emit(raw: string, out: RawStreamEvent[]): void {
    // A line completed within one chunk is never seen by push's check.
    if (raw.length > this.maxLine) throw new EventTooLarge(this.maxLine);
    const line = raw.trim();
    if (line) out.push({ data: line });
  }
}
