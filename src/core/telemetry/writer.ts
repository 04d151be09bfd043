// Batches run records off the request path. write() only queues and returns a
// promise that settles when the record is committed, so a caller can make a
// record durable before its response completes (a kill -9 then loses nothing
// that a client saw finish). Records are group-committed by a single drain
// loop on the next event-loop turn. At most one batch is ever in flight, so
// under load the records that arrive while a commit runs form the next batch
// (a commit costs far more than a row). `groupCommitMs` can space commits
// further apart; it defaults to 0 because every store now commits off the
// request thread (SQLite on its writer thread, Postgres over the network), and
// each millisecond of spacing is a millisecond added to every response that
// waits for its record. Failed batches go back to the front of the queue
// and are retried with backoff; records are only lost when the queue
// overflows maxQueue (oldest first). Writers of one turn share one promise
// (a "group"): a promise and a map entry per record cost more than the
// insert itself once the commit runs on another thread.

import type { RunLog } from "../../store/runs/types.ts";
import { sleep } from "../limits/clock.ts";
import type { RunRecord } from "../run-record.ts";
import { nextTurn, unrefTimer } from "../../runtime/timers.ts";

export interface RunWriterOptions {
  batchSize?: number;
  flushIntervalMs?: number;
  /** Minimum spacing of commits under load (default 0: the next batch goes as soon as the last commit returns). */
  groupCommitMs?: number;
  /** Longest a write() promise stays pending before it resolves anyway (default 1,000 ms; 0: it does not wait for the commit). */
  maxWaitMs?: number;
  maxQueue?: number;
  onError?(err: unknown): void;
}

/** What the writer needs of a run log: a store's, or a callback's (src/portable.ts). */
export type RunSink = Pick<RunLog, "insertRuns" | "prepareWrites">;

const MAX_BACKOFF_MS = 5_000;
/** Failed attempts after which flush() stops waiting and rejects; records stay queued. */
const FLUSH_ATTEMPTS = 6;

/** The records written in one turn: their writers wait on one promise, settled when the last of them is committed or dropped, or at the deadline. */
class Group {
  remaining = 0;
  settled = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(readonly deadline: number) {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
  }

  settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveDone();
  }
}

/** The group of every record written while maxWaitMs is 0: its writers do not wait. */
const NO_WAIT = new Group(0);
NO_WAIT.settle();

export class RunWriter {
  /** written: records stored; failed: insert attempts that failed (their records are retried); dropped: records discarded on overflow. */
  readonly stats = { written: 0, failed: 0, dropped: 0 };

  private queue: RunRecord[] = [];
  /** The group of each queued record, index for index. */
  private queueGroups: Group[] = [];
  /** The group new writes join; closed once a drain starts, so a group never waits on later records. */
  private openGroup: Group | undefined;
  /** Groups not yet settled, oldest first, for the deadline timer. */
  private waiting: Group[] = [];
  /** Armed for the oldest waiting group's deadline; at most one, so under load it fires about once per maxWaitMs. */
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private lastCommit = 0;
  private inFlight = 0;
  private draining: Promise<void> | undefined;
  private kickScheduled = false;
  private consecutiveFailures = 0;
  private retryAt = 0;
  private lastError: unknown;
  private dropReported = false;
  private prepared = false;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly groupCommitMs: number;
  /** Longest a write() promise stays pending; changeable at runtime (telemetry.durableWaitMs). */
  maxWaitMs: number;
  private readonly maxQueue: number;
  private readonly onError: (err: unknown) => void;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly log: RunSink,
    opts: RunWriterOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 200;
    this.flushIntervalMs = opts.flushIntervalMs ?? 250;
    this.groupCommitMs = opts.groupCommitMs ?? 0;
    this.maxWaitMs = opts.maxWaitMs ?? 1_000;
    this.maxQueue = opts.maxQueue ?? 100_000;
    this.onError = opts.onError ?? ((err) => console.error("run writer:", err));
    this.timer = setInterval(() => this.kick(), this.flushIntervalMs);
    // Telemetry must never keep the process alive on its own.
    unrefTimer(this.timer);
  }

  /**
   * Called while a request that will write a record waits on its vendor: the first call has the
   * store start what its first write needs (a thread) then, not after the answer.
   */
  prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    try {
      this.log.prepareWrites?.();
    } catch (err) {
      // The first write starts it again, and reports a failure the same way.
      this.report(err);
    }
  }

  /** Records queued or in flight. */
  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  /**
   * Queues a record; never blocks and never throws. The promise resolves once
   * the record is committed (or dropped on overflow); ignoring it is fine.
   */
  write(rec: RunRecord): Promise<void> {
    let group = this.openGroup;
    // A group already settled (its records dropped, or its wait expired) must not answer for new records.
    if (this.maxWaitMs <= 0) group = NO_WAIT;
    else if (!group || group.settled) {
      group = this.openGroup = new Group(Date.now() + this.maxWaitMs);
      this.waiting.push(group);
      this.armDeadline();
    }
    group.remaining++;
    this.queue.push(rec);
    this.queueGroups.push(group);
    const done = group.done;
    this.dropOverflow();
    if (!this.kickScheduled) {
      // Never inside the caller's response path; under load, spaced so each commit carries a batch.
      this.kickScheduled = true;
      const delay = this.lastCommit + this.groupCommitMs - performance.now();
      const run = () => {
        this.kickScheduled = false;
        this.kick();
      };
      if (delay > 0) setTimeout(run, delay);
      else nextTurn(run);
    }
    return done;
  }

  /** Writes everything queued so far, retrying with backoff; rejects after repeated failures. */
  async flush(): Promise<void> {
    const failedBefore = this.stats.failed;
    for (;;) {
      await this.draining;
      if (this.queue.length === 0) return;
      if (this.stats.failed - failedBefore >= FLUSH_ATTEMPTS) throw this.lastError;
      await sleep(Math.max(0, this.retryAt - Date.now()));
      this.kick();
    }
  }

  /** Flushes everything, then stops the timer. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      clearInterval(this.timer);
      clearTimeout(this.deadlineTimer);
    }
  }

  private kick(): void {
    if (this.draining || this.queue.length === 0 || Date.now() < this.retryAt) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // Records written from now on wait for a later batch, so they must not join a group of this one.
      this.openGroup = undefined;
      const batch = this.queue.splice(0, this.batchSize);
      const groups = this.queueGroups.splice(0, batch.length);
      this.inFlight = batch.length;
      try {
        await this.log.insertRuns(batch);
      } catch (err) {
        this.inFlight = 0;
        this.queue = batch.concat(this.queue);
        this.queueGroups = groups.concat(this.queueGroups);
        this.stats.failed++;
        this.consecutiveFailures++;
        this.lastError = err;
        this.retryAt = Date.now() + Math.min(this.flushIntervalMs * 2 ** (this.consecutiveFailures - 1), MAX_BACKOFF_MS);
        this.report(err);
        this.dropOverflow();
        return;
      }
      this.inFlight = 0;
      this.lastCommit = performance.now();
      this.stats.written += batch.length;
      this.release(groups);
      this.consecutiveFailures = 0;
      this.retryAt = 0;
      this.dropReported = false;
    }
  }

  private dropOverflow(): void {
    const excess = Math.min(this.pending - this.maxQueue, this.queue.length);
    if (excess <= 0) return;
    this.queue.splice(0, excess);
    this.release(this.queueGroups.splice(0, excess));
    this.stats.dropped += excess;
    // One report per overflow burst; a successful batch ends the burst.
    if (!this.dropReported) {
      this.dropReported = true;
      this.report(new Error(`run queue exceeded ${this.maxQueue} records: dropping the oldest`));
    }
  }

  /** Count records as settled (committed or dropped); a group whose last record this was is done. */
  private release(groups: Group[]): void {
    for (const g of groups) if (--g.remaining === 0) g.settle();
    if (this.waiting.length && this.waiting[0]!.settled) this.waiting = this.waiting.filter((g) => !g.settled);
  }

  /** A slow or failing store must not hold responses: past their deadline, waits end (the records stay queued). */
  private expireWaiters(): void {
    const now = Date.now();
    for (const g of this.waiting) if (g.deadline <= now) g.settle();
    this.waiting = this.waiting.filter((g) => !g.settled);
  }

  private armDeadline(): void {
    if (this.deadlineTimer || this.waiting.length === 0) return;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = undefined;
      this.expireWaiters();
      this.armDeadline();
    }, Math.max(0, this.waiting[0]!.deadline - Date.now()));
    // Like the retry timer: telemetry must never keep the process alive on its own.
    unrefTimer(this.deadlineTimer);
  }

  private report(err: unknown): void {
    try {
      this.onError(err);
    } catch {
      // A faulty error hook must not break telemetry.
    }
  }
}
