// A background job's polling, for the jobs that work from the store (webhook deliveries, benchmark
// runs): a timer polls every `everyMs`, kick() polls now (a kick while a poll runs makes one more poll
// right after it, never two at once), and stop() ends the polling and waits for the poll that runs.
import { unrefTimer } from "../runtime/timers.ts";

export class Poller {
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  /** Set by stop(): a poll in progress should end early. */
  stopped = false;

  constructor(
    private readonly poll: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  /** Polls from now on, the first time at once; false when it was started or stopped already. */
  start(): boolean {
    if (this.timer || this.stopped) return false;
    this.timer = setInterval(() => this.kick(), this.everyMs);
    unrefTimer(this.timer);
    this.kick();
    return true;
  }

  /** Polls now, or right after the poll that runs; nothing before start() or after stop(). */
  kick(): void {
    if (!this.timer || this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      if (this.again) (this.again = false), this.kick();
    });
  }

  /** The poll that runs, if any, has ended. */
  async idle(): Promise<void> {
    await this.polling;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.polling;
  }
}
