import type { RawStreamEvent } from "./types.ts";

/** An event (or the line being read) grew past the parser's cap; the stream cannot go on. */
export class EventTooLarge extends Error {
  constructor(readonly cap: number) {
    super(`vendor stream event larger than ${cap} characters`);
  }
}

/**
 * Incremental server-sent-events parser (WHATWG rules): events may be split
 * across reads at any byte, lines end in LF, CR or CRLF, `data:` lines are
 * joined with "\n", comment lines (":") are ignored. It holds at most one
 * unfinished event in memory, of at most `maxEvent` characters (EventTooLarge
 * past it).
 *
 * Every relayed stream runs through it, so lines are found with the native
 * indexOf rather than a per-character loop, and read in place without being
 * sliced out first. Only each new chunk is searched: an unfinished line is
 * kept as a rope that grows by concatenation, never re-read until its line
 * ends, so a large event costs linear time and the size check two lengths.
 */
export class SseParser {
  /** The unfinished last line. */
  private buf = "";
  /** Data lines of the event being read, already joined; undefined before its first. */
  private data: string | undefined;
  private event: string | undefined;
  private sawCR = false;
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxEvent = Infinity) {}

  /** Characters held for the event not yet complete (its name, data lines and unfinished line); 0 between events. */
  get held(): number {
    return this.buf.length + (this.data?.length ?? 0) + (this.event?.length ?? 0);
  }

  /** Feed bytes or text; returns the events completed by this chunk. */
  push(chunk: Uint8Array | string): RawStreamEvent[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    // A CRLF split across two chunks: the LF belongs to the CR already handled.
    // An empty chunk (or an incomplete UTF-8 sequence) says nothing yet, so the CR stays pending.
    if (text === "") return [];
    if (this.sawCR && text.charCodeAt(0) === 10) text = text.slice(1);
    this.sawCR = false;
    const out: RawStreamEvent[] = [];
    let start = 0;
    // Each kind of line break is searched for again only once passed: most streams have no CR
    // at all, and one scan says so.
    let cr = text.indexOf("\r");
    let lf = text.indexOf("\n");
    for (;;) {
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === text.length) this.sawCR = true;
        next = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      if (this.buf === "") this.line(text, start, end, out);
      else this.carried(text.slice(start, end), out);
      start = next;
    }
    if (start < text.length) this.buf += start === 0 ? text : text.slice(start);
    if (this.held > this.maxEvent) throw new EventTooLarge(this.maxEvent);
    return out;
  }

  /** A line begun in earlier chunks ends with `tail`. */
  private carried(tail: string, out: RawStreamEvent[]): void {
    const line = this.buf + tail;
    this.buf = "";
    this.line(line, 0, line.length, out);
  }

  /** Forget the unfinished event (its stream was cut). */
  clear(): void {
    this.buf = "";
    this.data = undefined;
    this.event = undefined;
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
    // An event completed within one chunk is never seen by push's check.
    if (this.data.length > this.maxEvent) throw new EventTooLarge(this.maxEvent);
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
