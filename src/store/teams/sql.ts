// The teams table (migration 6) on either driver.
import { isPlanName } from "../../core/tenancy/plans.ts";
import type { Row, SqlConnection } from "../sql.ts";
import type { Team, TeamStore } from "./types.ts";

export class SqlTeamStore implements TeamStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertTeam(t: Team): Promise<void> {
    await this.sql.run("INSERT INTO teams (id, name, plan, created_at) VALUES ($1, $2, $3, $4)", [t.id, t.name, t.plan, t.created_at]);
  }

  async getTeam(id: string): Promise<Team | undefined> {
    const row = await this.sql.one("SELECT * FROM teams WHERE id = $1", [id]);
    return row ? teamFromRow(row) : undefined;
  }

  async listTeams(): Promise<Team[]> {
    return (await this.sql.all("SELECT * FROM teams ORDER BY created_at, id", [])).map(teamFromRow);
  }

  async setPlan(id: string, plan: Team["plan"]): Promise<boolean> {
    return (await this.sql.run("UPDATE teams SET plan = $1 WHERE id = $2", [plan, id])) > 0;
  }
}

/** A teams row as a Team (also read joined to its keys: src/store/keys/sql.ts). */
export function teamFromRow(row: Row): Team {
  const plan = String(row.plan);
  // The column is written only from PlanName values; a hand-edited row falls back to the least.
  return { id: String(row.id), name: String(row.name), plan: isPlanName(plan) ? plan : "free", created_at: String(row.created_at) };
}
