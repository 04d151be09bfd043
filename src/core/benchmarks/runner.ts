// Runs the queued benchmark runs in the background (README "Model benchmarks"), from the store, so a run
// outlives the request that asked for it and the process that started it: claimed under a lease by
// the LeasedRunner (src/core/leased-runner.ts), so instances sharing a database never run one twice
// at once. A run interrupted by a restart is resumed, not failed: a stop puts it back in the queue at
// once, a crash leaves its lease to run out (LEASE_MS), and either way the next runner makes only the
// calls not recorded yet, with the spend already recorded counted against the cap. A run that cannot
// go on (the team's stored key cannot be decrypted, the store fails) is failed with the reason.
import { CoreError } from "../errors.ts";
import { LeasedRunner } from "../leased-runner.ts";
import type { BenchmarkRun } from "../../store/benchmarks/types.ts";
import { type BenchmarkDeps, executeRun } from "./execute.ts";

/** A claim outlives several heartbeats; a run whose instance died is taken over after it. */
export const LEASE_MS = 60_000;
/** Runs one instance executes at once (each with execute.ts' CONCURRENCY calls in flight). */
const MAX_ACTIVE = 4;

export class BenchmarkRunner {
  private readonly runner: LeasedRunner<BenchmarkRun>;

  constructor(private readonly deps: BenchmarkDeps) {
    const store = () => deps.store.benchmarks;
    this.runner = new LeasedRunner(
      deps,
      {
        kind: "benchmark run",
        due: (now, limit) => store().dueRuns(now, limit),
        claim: (id, now, until) => store().claimRun(id, now, until),
        renew: (id, until) => store().renewLease(id, until),
        execute: (run, signal, lost) => this.execute(run, signal, lost),
      },
      () => LEASE_MS,
      MAX_ACTIVE,
    );
  }

  /** Polls from now on (the cloud listener starts it); the first poll resumes what a previous process left. */
  start(): void {
    this.runner.start();
  }

  /** Polls now (a run was queued), or right after the poll that runs. */
  kick(): void {
    this.runner.kick();
  }

  /** No new run from now on; the running ones are interrupted, put back in the queue, and waited for. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  private async execute(run: BenchmarkRun, signal: AbortSignal, lost: () => boolean): Promise<void> {
    const store = this.deps.store.benchmarks;
    try {
      const outcome = await executeRun(this.deps, run, signal);
      if (lost()) return;
      if (outcome.kind === "interrupted") return await store.releaseRun(run.id);
      await store.finishRun(run.id, outcome.kind === "done" ? "succeeded" : "stopped", outcome.kind === "stopped" ? outcome.reason : null, this.deps.clock.now());
    } catch (e) {
      if (lost()) return;
      this.deps.log.error("a benchmark run failed", { run: run.id, error: e });
      const reason = e instanceof CoreError ? e.message : "an internal error ended the run; the server's log says why";
      await store.finishRun(run.id, "failed", reason, this.deps.clock.now()).catch((err: unknown) => this.deps.log.error("a benchmark run's failure could not be recorded", { run: run.id, error: err }));
    }
  }
}
