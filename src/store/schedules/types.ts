// Workflow schedules (issue 39 item 5; src/core/workflows/cloud/schedules.ts): a team's deployed
// workflow run on a cron expression in an IANA time zone. `next_fire_at` is the next firing's instant;
// an instance fires a schedule by inserting the firing's run (an id made from the schedule and the
// instant, so a second insert changes nothing) and then advancing `next_fire_at` by a compare-and-set
// on its old value, so instances sharing a database fire each instant once.

export interface Schedule {
  /** `sch_…` */
  id: string;
  team_id: string;
  /** The deployed workflow's name; a firing runs its latest version. */
  workflow_name: string;
  cron: string;
  /** IANA time zone the cron expression reads its wall clock in. */
  timezone: string;
  input: unknown;
  paused: boolean;
  /** ms since the epoch; null while paused. */
  next_fire_at: number | null;
  /** The instant of the last firing that started a run. */
  last_fired_at: number | null;
  last_run_id: string | null;
  /** Firings that started no run (the previous run was still going, or Cloud features were off). */
  skipped_firings: number;
  created_at: number;
  updated_at: number;
}

export type ScheduleChange = Pick<Schedule, "cron" | "timezone" | "input" | "paused" | "next_fire_at" | "updated_at">;

export interface ScheduleStore {
  insert(s: Schedule): Promise<void>;
  get(id: string): Promise<Schedule | undefined>;
  /** A team's schedules, oldest first. */
  list(teamId: string, limit: number, offset: number): Promise<{ schedules: Schedule[]; total: number }>;
  update(id: string, change: ScheduleChange): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Schedules not paused whose next firing is at or before `now`, the most overdue first. */
  due(now: number, limit: number): Promise<Schedule[]>;
  /**
   * Moves a schedule's next firing from `from` to `to` (compare-and-set): false when another instance
   * (or a change) moved it first; `to` null when the expression never fires again. `runId` is the run the firing started, or null when it was skipped.
   */
  advance(id: string, from: number, to: number | null, runId: string | null): Promise<boolean>;
}
