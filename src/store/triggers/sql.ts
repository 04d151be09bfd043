// The workflow_triggers and trigger_deliveries tables (migration 17) on either driver. A delivery's
// primary key makes "first to record it wins" one INSERT … ON CONFLICT DO NOTHING, so two instances
// that receive the same delivery at once accept it once.
import type { Row, SqlConnection } from "../sql.ts";
import type { TriggerConfig, TriggerStore, WorkflowTrigger } from "./types.ts";

const COLUMNS = "team_id, path, workflow_name, config, created_at";

export class SqlTriggerStore implements TriggerStore {
  constructor(private readonly sql: SqlConnection) {}

  async put(t: WorkflowTrigger): Promise<void> {
    await this.sql.run("DELETE FROM workflow_triggers WHERE team_id = $1 AND (workflow_name = $2 OR path = $3)", [t.team_id, t.workflow_name, t.path]);
    // A concurrent deploy may have taken the path meanwhile: the last one wins, as it would in turn.
    await this.sql.run(`INSERT INTO workflow_triggers (${COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (team_id, path) DO UPDATE SET workflow_name = excluded.workflow_name, config = excluded.config, created_at = excluded.created_at`, [t.team_id, t.path, t.workflow_name, JSON.stringify(t.config), t.created_at]);
  }

  async removeFor(teamId: string, workflowName: string): Promise<void> {
    await this.sql.run("DELETE FROM workflow_triggers WHERE team_id = $1 AND workflow_name = $2", [teamId, workflowName]);
  }

  async get(teamId: string, path: string): Promise<WorkflowTrigger | undefined> {
    const row = await this.sql.one(`SELECT ${COLUMNS} FROM workflow_triggers WHERE team_id = $1 AND path = $2`, [teamId, path]);
    return row ? triggerOf(row) : undefined;
  }

  async forWorkflow(teamId: string, workflowName: string): Promise<WorkflowTrigger | undefined> {
    const row = await this.sql.one(`SELECT ${COLUMNS} FROM workflow_triggers WHERE team_id = $1 AND workflow_name = $2`, [teamId, workflowName]);
    return row ? triggerOf(row) : undefined;
  }

  async remember(teamId: string, path: string, delivery: string, now: number, expiresAt: number): Promise<boolean> {
    await this.sql.run("DELETE FROM trigger_deliveries WHERE expires_at <= $1", [now]);
    const added = await this.sql.run("INSERT INTO trigger_deliveries (team_id, path, delivery, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [teamId, path, delivery, expiresAt]);
    return added === 1;
  }
}

function triggerOf(row: Row): WorkflowTrigger {
  return {
    team_id: String(row.team_id),
    path: String(row.path),
    workflow_name: String(row.workflow_name),
    config: JSON.parse(String(row.config)) as TriggerConfig,
    created_at: Number(row.created_at),
  };
}
