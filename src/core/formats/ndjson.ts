import type { RawStreamEvent } from "./types.ts";

/** Incremental newline-delimited JSON splitter: one raw event per non-empty line. */
export class NdjsonParser {
  private buf = "";
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array | string): RawStreamEvent[] {
    this.buf += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: RawStreamEvent[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) !== -1) {
      const line = this.buf.slice(0, nl).trim();
      this.buf = this.buf.slice(nl + 1);
      if (line) out.push({ data: line });
    }
    return out;
  }

  end(): RawStreamEvent[] {
    const line = (this.buf + this.decoder.decode()).trim();
    this.buf = "";
    return line ? [{ data: line }] : [];
  }
}
