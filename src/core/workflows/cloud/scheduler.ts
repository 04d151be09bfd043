// Fires the hosted teams' schedules (src/core/workflows/cloud/schedules.ts): a Poller checks every
// second, on the Relay's clock, which schedules are due. Firing one inserts its run with an id made
// from the schedule and the instant (a second insert, by another instance, changes nothing), then
// advances the schedule's next firing by a compare-and-set on the instant it read, so with several
// instances on one database each instant fires once; a crash between the two steps leaves the schedule
// due, and the retry finds the run there. Policies (docs/hosted-api.md "Schedules"):
// - catch-up: after downtime a schedule fires once for all the instants it missed, then goes on from
//   now (its next firing is the first after the current time, not after the missed one);
// - overlap: a firing while the schedule's previous run is still queued or running starts no run (it
//   is counted in `skipped_firings`), and so does one while the team's Cloud features are off.
import { sha256Hex } from "../../../runtime/hash.ts";
import type { Schedule, ScheduleStore } from "../../../store/schedules/types.ts";
import type { Logger } from "../../log.ts";
import { Poller } from "../../poller.ts";
import { enqueueRun, type RunQueue } from "./enqueue.ts";
import { nextFiring } from "./schedules.ts";

const POLL_MS = 1_000;
/** Schedules fired per poll; the next poll takes the rest at once (kicked). */
const BATCH = 100;

export type SchedulerDeps = RunQueue & {
  readonly log: Logger;
  readonly store: RunQueue["store"] & { readonly schedules: ScheduleStore; readonly accounts: { cloudEnabled(teamId: string): Promise<boolean | undefined> } };
};

/** The run id of a schedule's firing at `at`: the same on every instance. */
export const firingRunId = (scheduleId: string, at: number): string => `wfr_${sha256Hex(`${scheduleId}@${at}`).slice(0, 24)}`;

export class Scheduler {
  private readonly poller = new Poller(() => this.fireDue(), POLL_MS);

  constructor(private readonly deps: SchedulerDeps) {}

  /** Polls from now on (the cloud listener starts it). */
  start(): void {
    this.poller.start();
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** Fires the schedules due on the clock now; the poller calls it, and a test after moving the clock (safe alongside a poll: see above). */
  async fireDue(): Promise<void> {
    try {
      const now = this.deps.clock.now();
      const due = await this.deps.store.schedules.due(now, BATCH);
      for (const schedule of due) {
        if (this.poller.stopped) return;
        // One schedule failing (it stays due, and is tried again next poll) does not hold up the others.
        await this.fire(schedule, now).catch((e: unknown) => {
          if (!this.poller.stopped) this.deps.log.error("firing a schedule failed", { schedule: schedule.id, error: e });
        });
      }
      if (due.length === BATCH) this.poller.kick();
    } catch (e) {
      if (!this.poller.stopped) this.deps.log.error("firing schedules failed", { error: e });
    }
  }

  /** Fires the schedule's due instant once (the run, unless skipped) and moves it to its next instant after `now`. */
  private async fire(s: Schedule, now: number): Promise<void> {
    const at = s.next_fire_at!;
    const next = nextFiring(s.cron, s.timezone, now);
    const workflow = (await this.skips(s)) ? undefined : await this.deps.store.workflows.latest(s.team_id, s.workflow_name);
    const runId = workflow ? firingRunId(s.id, at) : null;
    if (workflow) await enqueueRun(this.deps, s.team_id, workflow, s.input, runId!);
    const advanced = await this.deps.store.schedules.advance(s.id, at, next, runId);
    if (advanced && runId === null) this.deps.log.info("a schedule's firing was skipped", { schedule: s.id, at: new Date(at).toISOString() });
  }

  /** Skip the firing while the previous run goes on, or while the team's Cloud features are off. */
  private async skips(s: Schedule): Promise<boolean> {
    if (!(await this.deps.store.accounts.cloudEnabled(s.team_id))) return true;
    if (!s.last_run_id) return false;
    const last = await this.deps.store.workflows.getRun(s.last_run_id);
    return last !== undefined && (last.status === "queued" || last.status === "running");
  }
}
