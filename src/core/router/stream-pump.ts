// The client side of a relayed stream, once priming has succeeded
// (stream-relay.ts): send what priming read, then per vendor chunk a read, a tap
// and a write into the client's sink (src/runtime/sink-stream.ts), and end it.
// A write waits while the client's buffer is full, so the vendor is read only as
// fast as the client reads. Every chunk of every stream passes through `pump`:
// it allocates nothing of its own per chunk.
//
// However a stream ends (the vendor's end, a stream cut short, a failed read,
// the client leaving), the run is recorded exactly once, and before the client
// sees the end; an end that is not the vendor's final event goes to the client
// as an error event in its format, so a cut stream never looks complete.
import { BoundedParser } from "./bounded-parser.ts";
import { EventTap } from "./stream-tap.ts";
import type { StreamOutcome, StreamRelayOptions } from "./stream-options.ts";
import { ReadGuard } from "./stream-read-guard.ts";
import { sinkStream, type SinkSource, type SinkWriter, write } from "../../runtime/sink-stream.ts";

/**
 * The stream's state (its parser, read guard and tap) and what relays it to the client. The sink
 * calls it directly as its source: no closures per stream.
 */
export class StreamPump implements SinkSource {
  protected readonly parser: BoundedParser;
  protected readonly guard: ReadGuard;
  protected readonly tap: EventTap;
  /** The vendor's end was read while priming. */
  protected ended = false;
  private finished = false;
  private clientGone = false;
  /** The client text of what priming read, for the client stream's first write. */
  private primed = "";

  constructor(protected readonly opts: StreamRelayOptions) {
    this.parser = new BoundedParser(opts.vendor.format === "ollama", opts.limits);
    this.guard = new ReadGuard(opts, this.parser);
    this.tap = new EventTap(opts, this.parser);
  }

  /**
   * The client stream writes straight to the response sink: the server pulls once, and each write
   * goes out with no queue and no promise per chunk. A write returns a promise when the sink is
   * full; awaiting it is the back-pressure that reaches the vendor socket.
   */
  protected clientStream(pendingText: string): ReadableStream<Uint8Array> {
    this.primed = pendingText;
    return sinkStream(this);
  }

  pull(writer: SinkWriter): Promise<void> {
    return this.pump(writer, this.primed);
  }

  cancel(reason: unknown): void {
    this.clientGone = true;
    this.guard.stopReading(reason);
    this.opts.abort(reason ?? new Error("client disconnected"));
    void this.finish("cancelled", "client disconnected");
  }

  /** Send what priming read, then relay the rest of the vendor stream. */
  protected async pump(controller: SinkWriter, pendingText: string): Promise<void> {
    const { guard, tap } = this;
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
        const { done, value } = await guard.read();
        guard.received();
        if (this.clientGone) return;
        if (done) return await this.closeOut(controller, await this.ending(controller));
        if (this.opts.passthrough) unsent.push(value);
        const text = tap.feed(value);
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
  private async ending(controller: SinkWriter): Promise<string> {
    if (this.guard.endedBy !== undefined) return "";
    const text = this.tap.feed(null);
    if (this.opts.passthrough) await this.parser.unsent.flush(controller);
    return text;
  }

  /** The vendor stream ended: close the client stream; one that stopped without its final event must not look complete. */
  private async closeOut(controller: SinkWriter, text: string): Promise<void> {
    const { tap } = this;
    this.guard.stopTimers();
    const truncated = (!tap.stopReason && !tap.vendorError) || tap.cutShort !== undefined;
    const reason = this.guard.endedBy ?? tap.cutShort ?? "vendor stream ended before completion";
    if (truncated) text += tap.errorFrame(reason);
    else text += tap.clientEnd();
    await write(controller, text);
    // The run record is committed before the client sees the stream end.
    await this.finish(tap.vendorError || truncated ? "error" : "ok", tap.vendorError?.message ?? (truncated ? reason : undefined));
    controller.close();
  }

  /** Reading the vendor failed mid-stream: tell the client in its format, and record why. */
  private async fail(controller: SinkWriter, e: unknown): Promise<void> {
    const { guard } = this;
    guard.limitPassed(e);
    guard.stopTimers();
    // Aborted by our own request signal (client gone, session killed): a cancellation,
    // not a vendor failure, so it must not count toward the provider's cooldown.
    const cancelled = this.opts.signal.aborted && guard.endedBy === undefined;
    const message = cancelled
      ? `request cancelled: ${(this.opts.signal.reason as Error)?.message ?? "aborted"}`
      : (guard.endedBy ?? `vendor stream failed: ${(e as Error)?.message ?? e}`);
    this.opts.abort(e);
    try {
      if (!this.clientGone) await write(controller, this.tap.errorFrame(message));
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

  private finish(outcome: StreamOutcome["outcome"], error: string | undefined): Promise<void> {
    if (this.finished) return Promise.resolve();
    this.finished = true;
    this.parser.letGo();
    const { usage, stopReason, model } = this.tap;
    return this.opts.onEnd({ outcome, error, usage, stopReason, model, limited: this.guard.limited });
  }
}
