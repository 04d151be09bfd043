import type { RawStreamEvent } from "./types.ts";

/**
 * Incremental server-sent-events parser (WHATWG rules): events may be split
 * across reads at any byte, lines end in LF, CR or CRLF, `data:` lines are
 * joined with "\n", comment lines (":") are ignored. It holds at most one
 * unfinished event in memory.
 *
 * Every relayed stream runs through it, so lines are found with the native
 * indexOf rather than a per-character loop, and read in place without being
 * sliced out first.
 */
export class SseParser {
  private buf = "";
  /** Data lines of the event being read, already joined; undefined before its first. */
  private data: string | undefined;
  private event: string | undefined;
  private sawCR = false;
  private readonly decoder = new TextDecoder();

  /** Feed bytes or text; returns the events completed by this chunk. */
  push(chunk: Uint8Array | string): RawStreamEvent[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    // A CRLF split across two chunks: the LF belongs to the CR already handled.
    // An empty chunk (or an incomplete UTF-8 sequence) says nothing yet, so the CR stays pending.
    if (text === "") return [];
    if (this.sawCR && text.charCodeAt(0) === 10) text = text.slice(1);
    this.sawCR = false;
    // What is left of earlier chunks holds no line break: the search starts after it.
    const scanned = this.buf.length;
    const buf = scanned === 0 ? text : this.buf + text;
    const out: RawStreamEvent[] = [];
    let start = 0;
    // Each kind of line break is searched for again only once passed: most streams have no CR
    // at all, and one scan says so.
    let cr = buf.indexOf("\r", scanned);
    let lf = buf.indexOf("\n", scanned);
    for (;;) {
      if (cr !== -1 && cr < start) cr = buf.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = buf.indexOf("\n", start);
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        this.line(buf, start, cr, out);
        if (cr + 1 === buf.length) this.sawCR = true;
        start = buf.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        this.line(buf, start, lf, out);
        start = lf + 1;
      } else break;
    }
    this.buf = buf.slice(start);
    return out;
  }

  /** End of input: a final event without its blank line still counts. */
  end(): RawStreamEvent[] {
    const out: RawStreamEvent[] = [];
    const rest = this.buf + this.decoder.decode();
    this.buf = "";
    if (rest) this.line(rest, 0, rest.length, out);
    this.line("", 0, 0, out);
    return out;
  }

  /** One line, `buf[start, end)`. */
  private line(buf: string, start: number, end: number, out: RawStreamEvent[]): void {
    if (start === end) {
      if (this.data !== undefined) out.push({ event: this.event, data: this.data });
      this.data = undefined;
      this.event = undefined;
      return;
    }
    if (buf.charCodeAt(start) === 58) return; // ":" comment
    if (buf.startsWith("data:", start)) this.addData(fieldValue(buf, start + 5, end));
    else if (buf.startsWith("event:", start)) this.event = fieldValue(buf, start + 6, end);
    else {
      // Rare shapes: a field without a colon (`data` alone is an empty data line), or another field.
      const line = buf.slice(start, end);
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : fieldValue(line, colon + 1, line.length);
      if (field === "data") this.addData(value);
      else if (field === "event") this.event = value;
      // `id` and `retry` carry nothing a gateway needs.
    }
  }

  private addData(value: string): void {
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
  }
}

/** The value after a field's colon at `from`, without the one space that may follow it. */
function fieldValue(buf: string, from: number, end: number): string {
  return buf.slice(from < end && buf.charCodeAt(from) === 32 ? from + 1 : from, end);
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Frame one SSE event; each line of a multi-line `data` gets its own `data:` field. */
export function sseFrame(data: string, event?: string): string {
  // JSON text never holds a raw line break: the split is for the rare text that does.
  const lines = LINE_BREAK.test(data) ? `data: ${data.split(LINE_BREAK).join("\ndata: ")}\n\n` : `data: ${data}\n\n`;
  return event ? `event: ${event}\n${lines}` : lines;
}
