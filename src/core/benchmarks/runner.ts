// Runs the queued benchmark runs in the background (README "Model benchmarks"), from the store, so a run
// outlives the request that asked for it and the process that started it. Every poll takes due runs
// — queued ones, and running ones whose lease ran out — by a compare-and-set (store claimRun), so
// instances sharing a database never run one twice at once; a heartbeat extends the lease while the
// run goes on. A run interrupted by a restart is resumed, not failed: a stop puts it back in the
// queue at once, a crash leaves its lease to run out (LEASE_MS), and either way the next runner makes
// only the calls not recorded yet, with the spend already recorded counted against the cap. A run
// that cannot go on (the team's stored key cannot be decrypted, the store fails) is failed with the
// reason. The poll runs on a real timer; lease times are the Relay's clock.
import { CoreError } from "../errors.ts";
import { Poller } from "../poller.ts";
import type { BenchmarkRun } from "../../store/benchmarks/types.ts";
import { type BenchmarkDeps, executeRun } from "./execute.ts";

const POLL_MS = 1_000;
/** A claim outlives several heartbeats; a run whose instance died is taken over after it. */
export const LEASE_MS = 60_000;
const HEARTBEAT_MS = LEASE_MS / 3;
/** Runs one instance executes at once (each with execute.ts' CONCURRENCY calls in flight). */
const MAX_ACTIVE = 4;

interface Active {
  abort: AbortController;
  /** Set when another runner took the run over: this one must not release or finish it. */
  lost: boolean;
  done: Promise<void>;
}

export class BenchmarkRunner {
  private readonly poller = new Poller(() => this.poll(), POLL_MS);
  private readonly active = new Map<string, Active>();

  constructor(private readonly deps: BenchmarkDeps) {}

  private get stopped(): boolean {
    return this.poller.stopped;
  }

  /** Polls from now on (the cloud listener starts it); the first poll resumes what a previous process left. */
  start(): void {
    this.poller.start();
  }

  /** Polls now (a run was queued), or right after the poll that runs. */
  kick(): void {
    this.poller.kick();
  }

  /** No new run from now on; the running ones are interrupted, put back in the queue, and waited for. */
  async stop(): Promise<void> {
    await this.poller.stop();
    for (const a of this.active.values()) a.abort.abort();
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private async poll(): Promise<void> {
    try {
      const room = MAX_ACTIVE - this.active.size;
      if (room <= 0) return;
      const now = this.deps.clock.now();
      for (const run of await this.deps.store.benchmarks.dueRuns(now, room)) {
        if (this.stopped) return;
        if (this.active.has(run.id) || !(await this.deps.store.benchmarks.claimRun(run.id, now, now + LEASE_MS))) continue;
        this.launch(run);
      }
    } catch (e) {
      if (!this.stopped) this.deps.log.error("polling benchmark runs failed", { error: e });
    }
  }

  private launch(run: BenchmarkRun): void {
    const active: Active = { abort: new AbortController(), lost: false, done: Promise.resolve() };
    const heartbeat = setInterval(() => void this.renew(run.id, active), HEARTBEAT_MS);
    heartbeat.unref?.();
    active.done = this.execute(run, active).finally(() => {
      clearInterval(heartbeat);
      this.active.delete(run.id);
      this.kick();
    });
    this.active.set(run.id, active);
  }

  private async renew(id: string, active: Active): Promise<void> {
    try {
      if (await this.deps.store.benchmarks.renewLease(id, this.deps.clock.now() + LEASE_MS)) return;
      active.lost = true;
      active.abort.abort();
    } catch (e) {
      this.deps.log.warn("extending a benchmark run's lease failed", { run: id, error: e });
    }
  }

  private async execute(run: BenchmarkRun, active: Active): Promise<void> {
    const store = this.deps.store.benchmarks;
    try {
      const outcome = await executeRun(this.deps, run, active.abort.signal);
      if (active.lost) return;
      if (outcome.kind === "interrupted") return await store.releaseRun(run.id);
      await store.finishRun(run.id, outcome.kind === "done" ? "succeeded" : "stopped", outcome.kind === "stopped" ? outcome.reason : null, this.deps.clock.now());
    } catch (e) {
      if (active.lost) return;
      this.deps.log.error("a benchmark run failed", { run: run.id, error: e });
      const reason = e instanceof CoreError ? e.message : "an internal error ended the run; the server's log says why";
      await store.finishRun(run.id, "failed", reason, this.deps.clock.now()).catch((err: unknown) => this.deps.log.error("a benchmark run's failure could not be recorded", { run: run.id, error: err }));
    }
  }
}
