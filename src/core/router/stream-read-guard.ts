// The vendor side of a relayed stream (stream-relay.ts): its reader, under an
// idle timeout and a total duration, and the one place a stream is cut. Relay
// ends a stream itself on silence, on overtime, or on a StreamLimit thrown while
// parsing; cutting cancels the vendor call, fails the pending read, and lets go
// of what the stream holds, so the pump meets the end as a failed read.
//
// Two timers per stream, made by the first read: each later read refreshes the
// idle timer rather than creating one, and it counts only while a vendor read is
// pending (a slow client is not an idle vendor).
import type { BoundedParser } from "./bounded-parser.ts";
import { IdleTimeout, StreamLimit, type StreamRelayOptions } from "./stream-options.ts";

export type ReadResult = { done: true; value?: Uint8Array } | { done: false; value: Uint8Array };
/** What the relay uses of the vendor body's reader. */
interface Reader {
  read(): Promise<ReadResult>;
  cancel(reason?: unknown): Promise<void>;
}

export class ReadGuard {
  /** A read started while waiting for the end (stream-relay.ts, awaitEnd) that the pump's next read takes over. */
  inFlight: Promise<ReadResult> | undefined;
  /** Why Relay itself ended the stream (idle, a limit, a guard); undefined while it has not. */
  endedBy: string | undefined;
  /** Ended by a StreamLimit: not the vendor's failure. */
  limited = false;
  private readonly reader: Reader;
  /** Created by the first read; each later read refreshes it (cheaper than a timer per read). */
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Armed with the idle timer: ends the stream at streamMaxDurationMs however busy it is. */
  private durationTimer: ReturnType<typeof setTimeout> | undefined;
  /** A vendor read is pending: only then does the idle timer count. */
  private waiting = false;
  /** When the pending vendor read started. */
  private readStart = 0;

  constructor(
    private readonly opts: StreamRelayOptions,
    private readonly parser: BoundedParser,
  ) {
    this.reader = opts.body.getReader();
  }

  /**
   * The next vendor chunk, under the idle timeout. Not an async function, to spare a promise per
   * chunk: the caller calls `received` once the read settles (a rejected read ends the stream).
   */
  read(): Promise<ReadResult> {
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
  received(): void {
    this.waiting = false;
    this.opts.onWait(performance.now() - this.readStart);
  }

  /** Reading stopped on a StreamLimit (a cap or a guard, thrown while parsing): the stream ends here. */
  limitPassed(e: unknown): void {
    if (e instanceof StreamLimit && this.endedBy === undefined) this.cut(e);
  }

  /** Stop the timers and let go of the vendor stream and of what it held. */
  stopReading(reason?: unknown): void {
    this.stopTimers();
    this.parser.letGo();
    this.reader.cancel(reason).catch(() => {});
  }

  stopTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.durationTimer);
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
}
