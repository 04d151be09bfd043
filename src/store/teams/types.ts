// Teams of the hosted API: the tenant every API key, run and agent of `relay cloud` belongs to.
import type { PlanName } from "../../core/tenancy/plans.ts";

export interface Team {
  /** `team_…` */
  id: string;
  name: string;
  plan: PlanName;
  /** ISO 8601. */
  created_at: string;
}

export interface TeamStore {
  insertTeam(team: Team): Promise<void>;
  getTeam(id: string): Promise<Team | undefined>;
  /** Oldest first. */
  listTeams(): Promise<Team[]>;
  /** Whether the team exists (and now has `plan`). */
  setPlan(id: string, plan: PlanName): Promise<boolean>;
}
