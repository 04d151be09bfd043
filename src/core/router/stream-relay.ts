// Relays a vendor stream to the client, either piping the vendor's bytes
// unchanged (same format) or translating event by event, with bounded memory:
// a write to the client waits while the client's buffer is full, so Relay reads
// from the vendor only as fast as the client reads from Relay. The vendor stream
// is always decoded on the side to learn usage and stop reason for telemetry.
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
// failure does (cut, then fail/closeOut): an error event in the client's
// format, the run logged with the reason, the vendor call cancelled. Before
// the client has a byte, it is a failed attempt instead, which may fall back.
//
// Every chunk of every stream passes through here, so the per-chunk path is
// kept to a read, a tap and a write: one idle timer per stream (refreshed,
// not re-created, per read), and a piped stream decodes only the events that
// can carry its outcome.
import type { RawStreamEvent, StreamDecoder, StreamEncoder } from "../formats/types.ts";
import { BoundedParser } from "./bounded-parser.ts";
import { IdleTimeout, StreamLimit, type PrimeResult, type StreamOutcome, type StreamRelayOptions } from "./stream-options.ts";
import { type IRError, type StopReason, type StreamEvent, emptyUsage } from "../ir.ts";
import { fulfilledValue } from "../../runtime/peek.ts";
import { sinkStream, type SinkWriter, write } from "../../runtime/sink-stream.ts";

export { IdleTimeout, StreamLimit, type PrimeResult, type StreamOutcome, type StreamRelayOptions } from "./stream-options.ts";

/**
 * How long a stream whose outcome came in while priming waits for the vendor's end before it is
 * relayed as a stream after all. On loopback the end follows within microseconds; this only bounds
 * a vendor that holds its connection open after the final event.
 */
export const WHOLE_WAIT_MS = 5;
/** Bytes after the final event that still make a whole answer (a vendor has nothing left but its end). */
const WHOLE_TRAILER_BYTES = 64 * 1024;

type Controller = SinkWriter;
type ReadResult = { done: true; value?: Uint8Array } | { done: false; value: Uint8Array };
/** What the relay uses of the vendor body's reader. */
interface Reader {
  read(): Promise<ReadResult>;
  cancel(reason?: unknown): Promise<void>;
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

/** Not an async wrapper: one async frame fewer held per stream while it is primed. */
export function primeStream(opts: StreamRelayOptions): Promise<PrimeResult> {
  return new Relay(opts).prime();
}

class Relay {
  private readonly reader: Reader;
  private readonly parser: BoundedParser;
  private readonly decoder: StreamDecoder;
  /** Undefined when piping: the vendor's bytes go out as they are. */
  private readonly clientEncoder: StreamEncoder | undefined;
  private usage = emptyUsage();
  private stopReason: StopReason | undefined;
  private model: string | undefined;
  private vendorError: IRError | undefined;
  private meaningful = false;
  private ended = false;
  private finished = false;
  // Passthrough forwards vendor bytes only, so an error the decoder raises at the end of the
  // stream (the vendor stopped before its final event) has no bytes yet: closeOut must send one.
  private cutShort: string | undefined;
  /** Created by the first read; each later read refreshes it (cheaper than a timer per read). */
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Armed with the idle timer: ends the stream at streamMaxDurationMs however busy it is. */
  private durationTimer: ReturnType<typeof setTimeout> | undefined;
  /** A vendor read is pending: only then does the idle timer count (a slow client is not an idle vendor). */
  private waiting = false;
  /** When the pending vendor read started. */
  private readStart = 0;
  /** Why Relay itself ended the stream (idle, a limit, a guard); undefined while it has not. */
  private endedBy: string | undefined;
  /** Ended by a StreamLimit: not the vendor's failure. */
  private limited = false;
  private clientGone = false;
  /** A read started while waiting for the end (see awaitEnd) that the pump takes over. */
  private inFlight: Promise<ReadResult> | undefined;

  constructor(private readonly opts: StreamRelayOptions) {
    this.reader = opts.body.getReader();
    this.parser = new BoundedParser(opts.vendor.format === "ollama", opts.limits);
    this.decoder = opts.vendor.streamDecoder();
    this.clientEncoder = opts.passthrough ? undefined : opts.client.streamEncoder({ model: opts.clientModel, includeUsage: opts.includeUsage });
  }

  /** Read until the first meaningful event, an error, or the end. */
  async prime(): Promise<PrimeResult> {
    let pendingText = "";
    try {
      while (!this.meaningful && !this.vendorError && !this.ended) pendingText += this.hold(await this.read());
    } catch (e) {
      this.limitPassed(e);
      this.stopReading();
      return { ok: false, error: this.vendorError, reason: this.endedBy ?? (e as Error)?.message ?? String(e), limited: this.limited };
    }
    // A stream that finished without content (e.g. an Anthropic refusal) is a complete answer, not a
    // failed attempt (conformance: replay.test.ts, anthropic-refusal.chunks.txt).
    if (!this.meaningful && this.stopReason === undefined) {
      this.stopReading();
      this.opts.abort(new Error("vendor stream failed before its first event"));
      const error = this.vendorError;
      return { ok: false, error, reason: this.endedBy ?? error?.message ?? "vendor stream ended before any content", limited: this.limited };
    }
    this.opts.onStart();
    if (!this.ended && (this.stopReason !== undefined || this.vendorError !== undefined)) pendingText += await this.awaitEnd();
    return { ok: true, body: this.ended ? await this.whole(pendingText) : this.clientStream(pendingText) };
  }

  /**
   * The outcome is known before the client has a byte: read on to the vendor's end for at most
   * WHOLE_WAIT_MS (and WHOLE_TRAILER_BYTES). Returns the client text of what it read; a read still
   * pending, or a failure, is left in `inFlight` for the pump to meet.
   */
  private async awaitEnd(): Promise<string> {
    let text = "";
    let trailer = 0;
    const deadline = performance.now() + WHOLE_WAIT_MS;
    try {
      while (!this.ended && trailer <= WHOLE_TRAILER_BYTES) {
        const next = (this.inFlight = this.read());
        // The read of a body whose end has already arrived settles within a microtask: no timer for it.
        await undefined;
        const result = fulfilledValue(next) ?? (await settledWithin(next, deadline - performance.now()));
        if (!result) break;
        this.inFlight = undefined;
        trailer += result.value?.byteLength ?? 0;
        text += this.hold(result);
      }
    } catch (e) {
      this.limitPassed(e);
      this.inFlight = Promise.reject(e);
      this.inFlight.catch(() => {}); // met by the pump's first read, a task later
    }
    return text;
  }

  /** A read made before the client has a byte: its chunk joins `unsent`; returns its client text. */
  private hold(result: ReadResult): string {
    this.received();
    if (result.done) {
      this.ended = true;
      return this.feed(null);
    }
    // Held before it is fed: its bytes count against the caps that feeding checks.
    this.parser.unsent.push(result.value);
    return this.feed(result.value);
  }

  /** The whole answer as one body: what the pump writes, collected; the run is logged before it returns. */
  private async whole(pendingText: string): Promise<Uint8Array | Blob | string> {
    const parts: Array<Uint8Array | string> = [];
    const collect: Controller = {
      write(chunk) {
        parts.push(chunk);
        return chunk.length;
      },
      close() {},
    };
    await this.pump(collect, pendingText);
    // A translated answer is all text: one string, which Response takes as it is, where a Blob of
    // the pieces cost ~5 µs more per answer (bench/ab.ts, case c, Bun 1.4.5). A piped answer read in
    // one chunk goes out as that chunk: a Blob around it doubled that step's cost (0.34 against 0.68
    // µs for 4 KB).
    if (!this.opts.passthrough) return parts.join("");
    const only = parts.length === 1 ? parts[0] : undefined;
    return only instanceof Uint8Array ? only : new Blob(parts);
  }

  /**
   * The client stream writes straight to the response sink (src/runtime/sink-stream.ts): the
   * server pulls once, and each write goes out with no queue and no promise per chunk. A write
   * returns a promise when the sink is full; awaiting it is the back-pressure that reaches the
   * vendor socket.
   */
  private clientStream(pendingText: string): ReadableStream<Uint8Array> {
    return sinkStream({
      pull: (controller) => this.pump(controller, pendingText),
      cancel: (reason) => {
        this.clientGone = true;
        this.stopReading(reason);
        this.opts.abort(reason ?? new Error("client disconnected"));
        void this.finish("cancelled", "client disconnected");
      },
    });
  }

  /** Send what priming read, then relay the rest of the vendor stream. */
  private async pump(controller: Controller, pendingText: string): Promise<void> {
    try {
      const unsent = this.parser.unsent;
      this.parser.priming = false;
      if (!this.opts.passthrough) {
        await write(controller, pendingText);
        unsent.clear();
      } else if (this.ended || !this.parser.open) await unsent.flush(controller);
      else await unsent.flushComplete(controller);
      if (this.ended) return await this.closeOut(controller, "");
      // Cancelled by the client (checked after each wait): the run is recorded, and nobody is listening any more.
      while (!this.clientGone) {
        const { done, value } = await this.read();
        this.received();
        if (this.clientGone) return;
        if (done) return await this.closeOut(controller, await this.ending(controller));
        if (this.opts.passthrough) unsent.push(value);
        const text = this.feed(value);
        const full = this.opts.passthrough ? unsent.pipe(controller, this.parser.open) : write(controller, text);
        if (full) {
          const since = performance.now();
          await full;
          this.opts.onWait(performance.now() - since);
        }
      }
    } catch (e) {
      await this.fail(controller, e);
    }
  }

  /** The vendor's end: the client text of the last events, once the bytes held back are sent; none when Relay cut the stream. */
  private async ending(controller: Controller): Promise<string> {
    if (this.endedBy !== undefined) return "";
    const text = this.feed(null);
    if (this.opts.passthrough) await this.parser.unsent.flush(controller);
    return text;
  }

  /**
   * The next vendor chunk, under the idle timeout. Not an async function, to spare a promise per
   * chunk: the caller clears `waiting` once the read settles (a rejected read ends the stream).
   */
  private read(): Promise<ReadResult> {
    this.waiting = true;
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => this.onIdle(), this.opts.idleTimeoutMs);
      this.durationTimer = setTimeout(() => this.onOvertime(), this.opts.limits.streamMaxDurationMs);
    }
    // A read taken over from awaitEnd started when awaitEnd made it.
    const next = this.inFlight ?? ((this.readStart = performance.now()), this.reader.read());
    this.inFlight = undefined;
    return next;
  }

  /** A vendor read settled: the idle timer stops counting, and the wait was the vendor's. */
  private received(): void {
    this.waiting = false;
    this.opts.onWait(performance.now() - this.readStart);
  }

  /** The timer ran out: the vendor was silent for the whole timeout only if a read is still pending. */
  private onIdle(): void {
    if (!this.waiting) return; // the next read refreshes the timer
    this.cut(new IdleTimeout(`vendor stream idle for ${this.opts.idleTimeoutMs} ms`));
  }

  private onOvertime(): void {
    this.cut(new StreamLimit(`vendor stream ran longer than ${this.opts.limits.streamMaxDurationMs} ms (server.streamMaxDurationMs)`));
  }

  /** Relay ends the stream itself: the vendor call is cancelled, and the pending or next read fails. */
  private cut(error: Error): void {
    this.endedBy = error.message;
    this.limited = error instanceof StreamLimit;
    this.opts.abort(error);
    this.reader.cancel(error).catch(() => {});
    this.parser.letGo();
  }

  /** Reading stopped on a StreamLimit (a cap or a guard, thrown while parsing): the stream ends here. */
  private limitPassed(e: unknown): void {
    if (e instanceof StreamLimit && this.endedBy === undefined) this.cut(e);
  }

  /** Stop the timers and let go of the vendor stream and of what it held. */
  private stopReading(reason?: unknown): void {
    this.stopTimers();
    this.parser.letGo();
    this.reader.cancel(reason).catch(() => {});
  }

  private stopTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.durationTimer);
  }

  /** Parse a vendor chunk (null: the end) for telemetry; returns the text for the client when translating. */
  private feed(chunk: Uint8Array | null): string {
    const raws = this.parser.parse(chunk);
    let out = "";
    // Once a piped (same-format) stream has shown its first real event, it is decoded only where
    // it can carry usage, a stop reason or an error: that is all the run log needs. Checked per
    // event, not per read: a fast vendor's whole answer often arrives in the read that primes it.
    // A guard sees every event.
    for (const raw of raws) {
      if (this.opts.passthrough && this.meaningful && this.opts.guard === undefined && !this.opts.vendor.carriesOutcome(raw)) continue;
      out += this.process(this.decoder.push(raw), raw);
    }
    if (chunk) return out;
    const closing = this.decoder.end();
    out += this.process(closing);
    if (this.opts.passthrough) for (const ev of closing) if (ev.type === "error") this.cutShort = ev.error.message;
    return out;
  }

  /** Note usage, stop reason, model and errors (of the vendor event `raw`); when translating, encode the events for the client. */
  private process(events: StreamEvent[], raw?: RawStreamEvent): string {
    let out = "";
    const guard = this.opts.guard;
    for (const ev of events) {
      if (guard) {
        const stop = guard(ev);
        if (stop !== undefined) throw new StreamLimit(stop);
      }
      switch (ev.type) {
        case "start":
          this.model = ev.model || this.model;
          if (ev.usage) this.usage = { ...this.usage, ...ev.usage };
          break;
        case "finish":
          this.usage = ev.usage;
          this.stopReason = ev.stopReason;
          break;
        case "error":
          this.vendorFailed(ev.error, raw);
          break;
        case "ping":
          break;
        default:
          this.meaningful = true;
      }
      if (this.clientEncoder) out += this.clientEncoder.encode(ev);
    }
    return out;
  }

  /** A vendor error, scrubbed. Piped, an event that echoes a secret in any field is swapped, while held, for the same error re-encoded. */
  private vendorFailed(error: IRError, raw: RawStreamEvent | undefined): void {
    this.vendorError = error;
    const scrubber = this.opts.scrubber;
    if (!scrubber) return;
    const vendorText = error.message;
    error.message = scrubber.scrub(vendorText);
    if (!this.opts.passthrough || raw === undefined) return;
    if (error.message !== vendorText || scrubber.scrub(raw.data) !== raw.data) {
      this.parser.unsent.replaceEvent(raw, this.opts.client.streamEncoder({ model: this.opts.clientModel }).encode({ type: "error", error }));
    }
  }

  /** The vendor stream ended: close the client stream; one that stopped without its final event must not look complete. */
  private async closeOut(controller: Controller, text: string): Promise<void> {
    this.stopTimers();
    const truncated = (!this.stopReason && !this.vendorError) || this.cutShort !== undefined;
    const reason = this.endedBy ?? this.cutShort ?? "vendor stream ended before completion";
    if (truncated) text += this.errorFrame(reason);
    else if (this.clientEncoder) text += this.clientEncoder.end();
    await write(controller, text);
    // The run record is committed before the client sees the stream end.
    await this.finish(this.vendorError || truncated ? "error" : "ok", this.vendorError?.message ?? (truncated ? reason : undefined));
    controller.close();
  }

  /** Reading the vendor failed mid-stream: tell the client in its format, and record why. */
  private async fail(controller: Controller, e: unknown): Promise<void> {
    this.limitPassed(e);
    this.stopTimers();
    // Aborted by our own request signal (client gone, session killed): a cancellation,
    // not a vendor failure, so it must not count toward the provider's cooldown.
    const cancelled = this.opts.signal.aborted && this.endedBy === undefined;
    const message = cancelled
      ? `request cancelled: ${(this.opts.signal.reason as Error)?.message ?? "aborted"}`
      : (this.endedBy ?? `vendor stream failed: ${(e as Error)?.message ?? e}`);
    this.opts.abort(e);
    try {
      if (!this.clientGone) await write(controller, this.errorFrame(message));
    } catch {
      // client already gone
    }
    await this.finish(cancelled ? "cancelled" : "error", message);
    try {
      controller.close();
    } catch {
      // client already gone
    }
  }

  private errorFrame(message: string): string {
    // A fresh encoder: the error frame must be well-formed whatever state the stream was in.
    const enc = this.opts.client.streamEncoder({ model: this.opts.clientModel });
    return enc.encode({ type: "error", error: { kind: "api_error", status: 502, message } }) + enc.end();
  }

  private finish(outcome: StreamOutcome["outcome"], error: string | undefined): Promise<void> {
    if (this.finished) return Promise.resolve();
    this.finished = true;
    this.parser.letGo();
    const { usage, stopReason, model, limited } = this;
    return this.opts.onEnd({ outcome, error, usage, stopReason, model, limited });
  }
}
