// Request-log retention of the hosted plans (spec §8): each team's runs are kept for its plan's
// logRetentionDays, measured on relay.clock. Relay.prune runs it with the proxy's own pruning (the
// runs of no team keep telemetry.retentionDays): at start and hourly, on a timer stopped on close.
// The plan is read on every pass, so a `relay cloud teams set-plan` takes effect at the next one.
import type { RunLog } from "../../store/runs/types.ts";
import type { TeamStore } from "../../store/teams/types.ts";
import { PLANS } from "./plans.ts";

export const DAY_MS = 86_400_000;

/** The oldest start time a run of a team on `plan` may have at `now` and still be kept. */
export const retainedSince = (plan: keyof typeof PLANS, now: number): number => now - PLANS[plan].logRetentionDays * DAY_MS;

/** Deletes every team's runs older than its plan keeps; returns how many. */
export async function pruneTeamRuns(teams: TeamStore, runs: RunLog, now: number): Promise<number> {
  let deleted = 0;
  // One team after another: each prune is cheap (the runs_team_ts index), and a store under load
  // is not handed every team's DELETE at once.
  for (const team of await teams.listTeams()) deleted += await runs.prune(retainedSince(team.plan, now), team.id);
  return deleted;
}
