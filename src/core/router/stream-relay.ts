// Relays a vendor stream to the client, either piping the vendor's bytes
// unchanged (same format) or translating event by event, with bounded memory.
// The parts: the vendor's reader under its timers (stream-read-guard.ts), the
// decoding of its events for the run log and the client (stream-tap.ts), and
// the pump into the client's sink (stream-pump.ts). This file starts it.
//
// The stream is "primed" before the client sees a byte: Relay reads until the
// vendor's first real event, so a vendor that fails at the start (an HTTP 200
// whose first event is an overload error, or a stream that ends empty) can
// still fall back to another model. A short answer often arrives whole while
// priming: then Relay reads the vendor's end too (waiting WHOLE_WAIT_MS at most),
// logs the run, and answers with the whole stream as one body, which leaves in
// one send instead of a stream's head and its end apart.
//
// A stream is bounded in what it may take: one event (parser cap), the bytes
// held while priming, its share of what all streams hold (bounded-parser.ts), and
// its total duration. Passing a bound, or a guard's veto, ends it as a vendor
// failure does: an error event in the client's format, the run logged with the
// reason, the vendor call cancelled. Before the client has a byte, it is a
// failed attempt instead, which may fall back.
import type { PrimeResult, StreamRelayOptions } from "./stream-options.ts";
import { StreamPump } from "./stream-pump.ts";
import type { ReadResult } from "./stream-read-guard.ts";
import { fulfilledValue } from "../../runtime/peek.ts";
import type { SinkWriter } from "../../runtime/sink-stream.ts";

/**
 * How long a stream whose outcome came in while priming waits for the vendor's end before it is
 * relayed as a stream after all. On loopback the end follows within microseconds; this only bounds
 * a vendor that holds its connection open after the final event.
 */
export const WHOLE_WAIT_MS = 5;
/** Bytes after the final event that still make a whole answer (a vendor has nothing left but its end). */
const WHOLE_TRAILER_BYTES = 64 * 1024;

/** Not an async wrapper: one async frame fewer held per stream while it is primed. */
export function primeStream(opts: StreamRelayOptions): Promise<PrimeResult> {
  return new Relay(opts).prime();
}

class Relay extends StreamPump {
  /** Read until the first meaningful event, an error, or the end. */
  async prime(): Promise<PrimeResult> {
    const { guard, tap } = this;
    let pendingText = "";
    try {
      while (!tap.meaningful && !tap.vendorError && !this.ended) pendingText += this.hold(await guard.read());
    } catch (e) {
      guard.limitPassed(e);
      guard.stopReading();
      return { ok: false, error: tap.vendorError, reason: guard.endedBy ?? (e as Error)?.message ?? String(e), limited: guard.limited };
    }
    // A stream that finished without content (e.g. an Anthropic refusal) is a complete answer, not a
    // failed attempt (conformance: replay.test.ts, anthropic-refusal.chunks.txt).
    if (!tap.meaningful && tap.stopReason === undefined) {
      guard.stopReading();
      this.opts.abort(new Error("vendor stream failed before its first event"));
      const error = tap.vendorError;
      return { ok: false, error, reason: guard.endedBy ?? error?.message ?? "vendor stream ended before any content", limited: guard.limited };
    }
    this.opts.onStart();
    if (!this.ended && (tap.stopReason !== undefined || tap.vendorError !== undefined)) pendingText += await this.awaitEnd();
    return { ok: true, body: this.ended ? await this.whole(pendingText) : this.clientStream(pendingText) };
  }

  /**
   * The outcome is known before the client has a byte: read on to the vendor's end for at most
   * WHOLE_WAIT_MS (and WHOLE_TRAILER_BYTES). Returns the client text of what it read; a read still
   * pending, or a failure, is left in the guard's `inFlight` for the pump to meet.
   */
  private async awaitEnd(): Promise<string> {
    const { guard } = this;
    let text = "";
    let trailer = 0;
    const deadline = performance.now() + WHOLE_WAIT_MS;
    try {
      while (!this.ended && trailer <= WHOLE_TRAILER_BYTES) {
        const next = (guard.inFlight = guard.read());
        // The read of a body whose end has already arrived settles within a microtask: no timer for it.
        await undefined;
        const result = fulfilledValue(next) ?? (await settledWithin(next, deadline - performance.now()));
        if (!result) break;
        guard.inFlight = undefined;
        trailer += result.value?.byteLength ?? 0;
        text += this.hold(result);
      }
    } catch (e) {
      guard.limitPassed(e);
      guard.inFlight = Promise.reject(e);
      guard.inFlight.catch(() => {}); // met by the pump's first read, a task later
    }
    return text;
  }

  /** A read made before the client has a byte: its chunk joins `unsent`; returns its client text. */
  private hold(result: ReadResult): string {
    this.guard.received();
    if (result.done) {
      this.ended = true;
      return this.tap.feed(null);
    }
    // Held before it is fed: its bytes count against the caps that feeding checks.
    this.parser.unsent.push(result.value);
    return this.tap.feed(result.value);
  }

  /** The whole answer as one body: what the pump writes, collected; the run is logged before it returns. */
  private async whole(pendingText: string): Promise<Uint8Array | Blob | string> {
    const collect = new Collector();
    await this.pump(collect, pendingText);
    const { parts } = collect;
    // A translated answer is all text: one string, which Response takes as it is, where a Blob of
    // the pieces cost ~5 µs more per answer (bench/ab.ts, case c, Bun 1.4.5). A piped answer read in
    // one chunk goes out as that chunk: a Blob around it doubled that step's cost (0.34 against 0.68
    // µs for 4 KB).
    if (!this.opts.passthrough) return parts.join("");
    const only = parts.length === 1 ? parts[0] : undefined;
    return only instanceof Uint8Array ? only : new Blob(parts);
  }
}

/** The sink of a whole answer: what the pump writes, kept. */
class Collector implements SinkWriter {
  readonly parts: Array<Uint8Array | string> = [];

  write(chunk: Uint8Array | string): number {
    this.parts.push(chunk);
    return chunk.length;
  }

  close(): void {}
}

/** The read's result if it settles within `ms`; undefined if it is still pending then, or failed. */
function settledWithin(read: Promise<ReadResult>, ms: number): Promise<ReadResult | undefined> {
  if (ms <= 0) return Promise.resolve(undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([read, late]).then(
    (result) => (clearTimeout(timer), result),
    () => (clearTimeout(timer), undefined),
  );
}
