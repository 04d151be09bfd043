// Vendor chunks a stream has read but not yet sent to its client: those read
// while priming, and, when piping, the part of an event not yet complete. A
// piped chunk goes out once the events in it are complete, so that a stream
// Relay cuts inside an event (a cap) still ends well-formed for the client,
// which could not use half an event anyway. Vendors send whole events per
// chunk, so this nearly always holds one chunk for the time of one check.

import { concatBytes } from "../bytes.ts";
import { NdjsonParser } from "../formats/ndjson.ts";
import { SseParser } from "../formats/sse.ts";
import type { RawStreamEvent } from "../formats/types.ts";
import { type SinkWriter, write } from "../../runtime/sink-stream.ts";

const LF = 10;
const CR = 13;
/** takeComplete's answer when no event ended: shared, so that the chunks of a long event allocate nothing. */
const NONE: readonly Uint8Array[] = Object.freeze([]);

export class HeldBack {
  readonly chunks: Uint8Array[] = [];
  /** Their total size, charged to the stream's caps (see bounded-parser.ts). */
  bytes = 0;

  /** `lines`: every line is an event (NDJSON); otherwise an event ends at a blank line (SSE). */
  constructor(private readonly lines: boolean) {}

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
  }

  clear(): void {
    this.chunks.length = this.bytes = 0;
  }

  /**
   * Pipe the chunk just pushed once the events in it are complete (`open`: the parser holds an
   * unfinished event). Nearly always that one chunk, whole: a plain write.
   */
  pipe(sink: SinkWriter, open: boolean): Promise<unknown> | undefined {
    if (open) {
      const complete = this.takeComplete(1);
      return complete.length === 0 ? undefined : sendAll(sink, complete);
    }
    if (this.chunks.length !== 1) return this.flush(sink);
    const only = this.chunks[0]!;
    this.clear();
    return write(sink, only);
  }

  /** Send every chunk held (the events in them are complete, or the stream is at its end). */
  async flush(sink: SinkWriter): Promise<void> {
    await sendAll(sink, this.chunks);
    this.clear();
  }

  /** Send the chunks up to the last complete event; hold the rest (the end of priming). */
  flushComplete(sink: SinkWriter): Promise<void> {
    return sendAll(sink, this.takeComplete(this.chunks.length));
  }

  /**
   * Swaps the held bytes of the complete event `raw` for `replacement`; the chunks held become one.
   * For a vendor error that must not go out as the vendor sent it (stream-tap.ts): the event is
   * found by parsing the held events again, a cost no other chunk pays. A held event is always
   * found (in a stream whose lines end in CR alone, the events held with it are swapped too).
   */
  replaceEvent(raw: RawStreamEvent, replacement: string): void {
    const all = concatBytes(this.chunks);
    for (let from = 0, end = 0; from < all.byteLength; from = end) {
      end = this.nextEnd(all, from);
      if (!holds(all.subarray(from, end), raw, this.lines)) continue;
      const swapped = concatBytes([all.subarray(0, from), new TextEncoder().encode(replacement), all.subarray(end)]);
      this.chunks.splice(0, this.chunks.length, swapped);
      this.bytes = swapped.byteLength;
      return;
    }
  }

  /**
   * Takes the chunks up to the last event end in the newest `scan` chunks (older ones were
   * scanned when they came), the chunk holding it cut there; the rest stays held. Empty when no
   * event ended in them.
   */
  private takeComplete(scan: number): readonly Uint8Array[] {
    const chunks = this.chunks;
    for (let i = chunks.length - 1; i >= 0 && i >= chunks.length - scan; i--) {
      const end = this.eventEnd(chunks[i]!);
      if (end === 0) continue;
      const cut = chunks[i]!;
      const taken = end === cut.byteLength ? chunks.splice(0, i + 1) : chunks.splice(0, i + 1, cut.subarray(end));
      taken[i] = cut.subarray(0, end);
      this.bytes = 0;
      for (const c of chunks) this.bytes += c.byteLength;
      return taken;
    }
    return NONE;
  }

  /** Where the last complete event in `chunk` ends (after its closing line break), or 0. */
  private eventEnd(chunk: Uint8Array): number {
    let i = chunk.lastIndexOf(LF);
    if (this.lines) return i + 1;
    // A blank line: LF after LF, or after CR LF. A stream that ends its lines with CR alone is
    // held back until its events complete, which is still correct.
    for (; i > 0; i = chunk.lastIndexOf(LF, i - 1)) if (blankLineAt(chunk, i)) return i + 1;
    return 0;
  }

  /** Where the first event that ends after `from` in `bytes` ends, or their end (the last event may lack its blank line). */
  private nextEnd(bytes: Uint8Array, from: number): number {
    for (let i = bytes.indexOf(LF, from); i !== -1; i = bytes.indexOf(LF, i + 1)) if (this.lines || blankLineAt(bytes, i)) return i + 1;
    return bytes.byteLength;
  }
}

/** The LF at `i` ends a blank line: it follows LF, or CR LF. */
function blankLineAt(bytes: Uint8Array, i: number): boolean {
  return bytes[i - 1] === LF || (bytes[i - 1] === CR && bytes[i - 2] === LF);
}

/** `segment` (whole events, or the stream's last bytes) holds the event `raw`. */
function holds(segment: Uint8Array, raw: RawStreamEvent, lines: boolean): boolean {
  const parser = lines ? new NdjsonParser() : new SseParser();
  const text = new TextDecoder().decode(segment);
  return [...parser.push(text), ...parser.end()].some((e) => e.data === raw.data && e.event === raw.event);
}

async function sendAll(sink: SinkWriter, chunks: readonly Uint8Array[]): Promise<void> {
  for (const c of chunks) await write(sink, c);
}
