// A vendor stream's parser under the stream caps (config `server.stream*`):
// one event at most streamMaxEventBytes (the parsers' own cap), the bytes held
// before the client's first at most streamMaxPrimingBytes, and this stream's
// share of what all streams hold within streamMaxHeldBytes (held-bytes.ts).
// Checked once per chunk with a few integer operations; nothing is allocated.
import { NdjsonParser } from "../formats/ndjson.ts";
import { EventTooLarge, SseParser } from "../formats/sse.ts";
import type { RawStreamEvent } from "../formats/types.ts";
import { chargeHeld, releaseHeld } from "../limits/held-bytes.ts";
import { HeldBack } from "./held-back.ts";
import { StreamLimit } from "./stream-options.ts";

/** The caps of one vendor stream: `server` of the config, passed as it is (no object per stream). */
export interface StreamLimits {
  streamMaxEventBytes: number;
  streamMaxPrimingBytes: number;
  streamMaxHeldBytes: number;
  streamMaxDurationMs: number;
}

export class BoundedParser {
  /** Vendor chunks the client has not had: read while priming, or (piping) part of an event not yet complete. */
  readonly unsent: HeldBack;
  /** Until the client has its first byte: what is unsent is then bounded by the priming cap. */
  priming = true;
  private readonly parser: SseParser | NdjsonParser;
  /** What this stream has charged to the process-wide count. */
  private charged = 0;

  constructor(
    ndjson: boolean,
    private readonly limits: StreamLimits,
  ) {
    this.parser = ndjson ? new NdjsonParser(limits.streamMaxEventBytes) : new SseParser(limits.streamMaxEventBytes);
    this.unsent = new HeldBack(ndjson);
  }

  /** An event is unfinished: its bytes must not reach the client yet. */
  get open(): boolean {
    return this.parser.held !== 0;
  }

  /** The events a chunk completes (null: the end); a StreamLimit naming the cap when one is passed. */
  parse(chunk: Uint8Array | null): RawStreamEvent[] {
    let raws: RawStreamEvent[];
    try {
      raws = chunk ? this.parser.push(chunk) : this.parser.end();
    } catch (e) {
      throw e instanceof EventTooLarge ? new StreamLimit(`${e.message} (server.streamMaxEventBytes)`) : e;
    }
    const limits = this.limits;
    const unsent = this.unsent.bytes;
    if (this.priming && unsent > limits.streamMaxPrimingBytes) {
      throw new StreamLimit(`vendor stream held more than ${limits.streamMaxPrimingBytes} bytes before its first event (server.streamMaxPrimingBytes)`);
    }
    const held = this.parser.held + unsent;
    if (held !== this.charged) {
      if (!chargeHeld(held - this.charged, limits.streamMaxHeldBytes)) {
        throw new StreamLimit(`vendor streams would hold more than ${limits.streamMaxHeldBytes} bytes in all (server.streamMaxHeldBytes)`);
      }
      this.charged = held;
    }
    return raws;
  }

  /**
   * Drop what the stream holds (its unfinished event, its unsent chunks) with its charge: memory the
   * process-wide count gives back must be collectable, not still held while the run is logged.
   */
  letGo(): void {
    this.unsent.clear();
    this.parser.clear();
    releaseHeld(this.charged);
    this.charged = 0;
  }
}
