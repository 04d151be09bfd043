import type { RawStreamEvent } from "./types.ts";

/** Incremental newline-delimited JSON splitter: one raw event per non-empty line. */
export class NdjsonParser {
  private buf = "";
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array | string): RawStreamEvent[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const buf = this.buf === "" ? text : this.buf + text;
    const out: RawStreamEvent[] = [];
    // Lines are read in place; only the unfinished last one is kept.
    let start = 0;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n", start)) {
      const line = buf.slice(start, nl).trim();
      if (line) out.push({ data: line });
      start = nl + 1;
    }
    this.buf = buf.slice(start);
    return out;
  }

  end(): RawStreamEvent[] {
    const line = (this.buf + this.decoder.decode()).trim();
    this.buf = "";
    return line ? [{ data: line }] : [];
  }
}
