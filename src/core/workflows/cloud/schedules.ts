// Schedules of deployed workflows (issue 39 item 5; docs/hosted-api.md "Schedules"): a cron expression
// read on the wall clock of an IANA time zone, by croner. Daylight saving follows croner (Vixie cron's
// rules): a fixed time (one value each in minutes and hours, as `30 2 * * *`) that a spring-forward
// skips fires at the first valid time after the gap, that day; a fixed time a fall-back repeats fires
// once, at its first occurrence; an interval expression (`*/30 * * * *`) skips the gap's times and fires
// on both passes through a repeated hour. Creating and changing schedules, checked field by field.
import { Cron } from "croner";
import { prefixedId } from "../../ids.ts";
import { bool, invalid, text } from "../../registry/fields.ts";
import type { Schedule, ScheduleStore } from "../../../store/schedules/types.ts";
import type { WorkflowStore } from "../../../store/workflows/types.ts";

/** The cron expression's next firing strictly after `after` (ms), in `timezone`; null when it never fires again. */
export function nextFiring(cron: string, timezone: string, after: number): number | null {
  return new Cron(cron, { timezone, paused: true, mode: "5-or-6-parts" }).nextRun(new Date(after))?.getTime() ?? null;
}

function cronOf(value: unknown): string {
  const cron = text(value, "cron", 256).trim();
  try {
    new Cron(cron, { paused: true, mode: "5-or-6-parts" });
  } catch (e) {
    throw invalid("cron", value, "cron expression", `is not a cron expression of 5 fields (or 6, seconds first): ${(e as Error).message.replace(/^CronPattern: /, "")}`);
  }
  return cron;
}

function timezoneOf(value: unknown): string {
  const timezone = text(value, "timezone", 64);
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return timezone;
  } catch {
    throw invalid("timezone", value, "IANA time zone", `is not a time zone this server knows (an IANA name such as "America/New_York")`);
  }
}

/** The next firing from `now` of a schedule that is not paused; a 400 on `cron` when it never fires again. */
function nextOf(cron: string, timezone: string, paused: boolean, now: number): number | null {
  if (paused) return null;
  const next = nextFiring(cron, timezone, now);
  if (next === null) throw invalid("cron", cron, "cron expression", "never fires again");
  return next;
}

/** A new schedule from a POST body: `workflow` must be deployed in the team (400 otherwise). */
export async function newSchedule(workflows: WorkflowStore, teamId: string, body: Record<string, unknown>, now: number): Promise<Schedule> {
  const name = text(body.workflow, "workflow", 128);
  const cron = cronOf(body.cron);
  const timezone = body.timezone === undefined ? "UTC" : timezoneOf(body.timezone);
  const paused = body.paused === undefined ? false : bool(body.paused, "paused");
  if (!(await workflows.latest(teamId, name))) throw invalid("workflow", name, "deployed workflow", "names no workflow deployed in this team (POST /api/v1/workflows first)");
  return {
    id: prefixedId("sch"), team_id: teamId, workflow_name: name, cron, timezone, input: body.input ?? null, paused,
    next_fire_at: nextOf(cron, timezone, paused, now), last_fired_at: null, last_run_id: null, skipped_firings: 0, created_at: now, updated_at: now,
  };
}

/** A PATCH body applied: the next firing is computed anew from now when the cron, time zone or pause changed. */
export async function changeSchedule(store: ScheduleStore, s: Schedule, body: Record<string, unknown>, now: number): Promise<Schedule> {
  const cron = body.cron === undefined ? s.cron : cronOf(body.cron);
  const timezone = body.timezone === undefined ? s.timezone : timezoneOf(body.timezone);
  const paused = body.paused === undefined ? s.paused : bool(body.paused, "paused");
  const input = body.input === undefined ? s.input : body.input;
  const retimed = cron !== s.cron || timezone !== s.timezone || paused !== s.paused;
  const change = { cron, timezone, input, paused, next_fire_at: retimed ? nextOf(cron, timezone, paused, now) : s.next_fire_at, updated_at: now };
  await store.update(s.id, change);
  return { ...s, ...change };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const scheduleView = (s: Schedule) => ({
  id: s.id,
  object: "schedule" as const,
  workflow: s.workflow_name,
  cron: s.cron,
  timezone: s.timezone,
  input: s.input,
  paused: s.paused,
  next_fire_at: iso(s.next_fire_at),
  last_fired_at: iso(s.last_fired_at),
  last_run_id: s.last_run_id,
  skipped_firings: s.skipped_firings,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});
