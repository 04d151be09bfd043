import type { RawStreamEvent } from "./types.ts";

/**
 * Incremental server-sent-events parser (WHATWG rules): events may be split
 * across reads at any byte, lines end in LF, CR or CRLF, `data:` lines are
 * joined with "\n", comment lines (":") are ignored. It holds at most one
 * unfinished event in memory.
 */
export class SseParser {
  private buf = "";
  private data: string[] = [];
  private event: string | undefined;
  private sawCR = false;
  private readonly decoder = new TextDecoder();

  /** Feed bytes or text; returns the events completed by this chunk. */
  push(chunk: Uint8Array | string): RawStreamEvent[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    // A CRLF split across two chunks: the LF belongs to the CR already handled.
    // An empty chunk (or an incomplete UTF-8 sequence) says nothing yet, so the CR stays pending.
    if (text === "") return [];
    if (this.sawCR && text.startsWith("\n")) text = text.slice(1);
    this.sawCR = false;
    this.buf += text;
    const out: RawStreamEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.buf.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < this.buf.length) {
          if (this.buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.sawCR = true;
        }
      }
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  /** End of input: a final event without its blank line still counts. */
  end(): RawStreamEvent[] {
    const out: RawStreamEvent[] = [];
    const rest = this.decoder.decode();
    if (rest) this.buf += rest;
    if (this.buf) this.line(this.buf, out);
    this.buf = "";
    this.line("", out);
    return out;
  }

  private line(line: string, out: RawStreamEvent[]): void {
    if (line === "") {
      if (this.data.length > 0) out.push({ event: this.event, data: this.data.join("\n") });
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    // `id` and `retry` carry nothing a gateway needs.
  }
}

/** Frame one SSE event; each line of a multi-line `data` gets its own `data:` field. */
export function sseFrame(data: string, event?: string): string {
  const lines = `data: ${data.split(/\r\n|\r|\n/).join("\ndata: ")}\n\n`;
  return event ? `event: ${event}\n${lines}` : lines;
}
