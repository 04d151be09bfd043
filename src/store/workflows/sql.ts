// The workflows, workflow_runs and workflow_steps tables (migration 16) on either driver. A version is
// unique per (team, name, digest), so deploying the same definition twice inserts nothing; a run is
// claimed by a compare-and-set on its status and lease, the same statement on SQLite and Postgres; a
// step's primary key (run, name) keeps a resumed run from recording it twice.
import { numberOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { DeployedWorkflow, StoredStep, WorkflowRun, WorkflowRunStatus, WorkflowStore } from "./types.ts";

const WF_COLUMNS = "id, team_id, name, version, definition, digest, created_at";
const RUN_COLUMNS = "id, team_id, workflow_id, workflow_name, version, status, input, result, created_at, started_at, finished_at, lease_until";
const DUE = "(status = 'queued' OR (status = 'running' AND lease_until < $1))";
/** Deploys racing on one name take turns for the next version number. */
const DEPLOY_ATTEMPTS = 5;

export class SqlWorkflowStore implements WorkflowStore {
  constructor(private readonly sql: SqlConnection) {}

  async deploy(w: Omit<DeployedWorkflow, "version">): Promise<DeployedWorkflow> {
    for (let attempt = 0; attempt < DEPLOY_ATTEMPTS; attempt++) {
      const same = await this.sql.one(`SELECT ${WF_COLUMNS} FROM workflows WHERE team_id = $1 AND name = $2 AND digest = $3`, [w.team_id, w.name, w.digest]);
      if (same) return workflowOf(same);
      const [top] = await this.sql.all("SELECT COALESCE(MAX(version), 0) AS version FROM workflows WHERE team_id = $1 AND name = $2", [w.team_id, w.name]);
      const version = Number(top!.version) + 1;
      const added = await this.sql.run(`INSERT INTO workflows (${WF_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, [
        w.id, w.team_id, w.name, version, JSON.stringify(w.definition), w.digest, w.created_at,
      ]);
      if (added === 1) return { ...w, version };
    }
    throw new Error(`deploying workflow "${w.name}" kept conflicting with concurrent deploys`);
  }

  async getWorkflow(id: string): Promise<DeployedWorkflow | undefined> {
    const row = await this.sql.one(`SELECT ${WF_COLUMNS} FROM workflows WHERE id = $1`, [id]);
    return row ? workflowOf(row) : undefined;
  }

  async latest(teamId: string, name: string): Promise<DeployedWorkflow | undefined> {
    const row = await this.sql.one(`SELECT ${WF_COLUMNS} FROM workflows WHERE team_id = $1 AND name = $2 ORDER BY version DESC LIMIT 1`, [teamId, name]);
    return row ? workflowOf(row) : undefined;
  }

  async atVersion(teamId: string, name: string, version: number): Promise<DeployedWorkflow | undefined> {
    const row = await this.sql.one(`SELECT ${WF_COLUMNS} FROM workflows WHERE team_id = $1 AND name = $2 AND version = $3`, [teamId, name, version]);
    return row ? workflowOf(row) : undefined;
  }

  async listWorkflows(teamId: string): Promise<DeployedWorkflow[]> {
    const rows = await this.sql.all(
      `SELECT ${WF_COLUMNS} FROM workflows w WHERE team_id = $1 AND version = (SELECT MAX(version) FROM workflows v WHERE v.team_id = w.team_id AND v.name = w.name) ORDER BY name`,
      [teamId],
    );
    return rows.map(workflowOf);
  }

  async insertRun(r: WorkflowRun): Promise<boolean> {
    const added = await this.sql.run(`INSERT INTO workflow_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`, [
      r.id, r.team_id, r.workflow_id, r.workflow_name, r.version, r.status, JSON.stringify(r.input ?? null),
      r.result === null ? null : JSON.stringify(r.result), r.created_at, r.started_at, r.finished_at, r.lease_until,
    ]);
    return added === 1;
  }

  async getRun(id: string): Promise<WorkflowRun | undefined> {
    const row = await this.sql.one(`SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE id = $1`, [id]);
    return row ? runOf(row) : undefined;
  }

  async listRuns(teamId: string, limit: number, offset: number) {
    const rows = await this.sql.all(`SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE team_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [teamId, limit, offset]);
    const [count] = await this.sql.all("SELECT COUNT(*) AS total FROM workflow_runs WHERE team_id = $1", [teamId]);
    return { runs: rows.map(runOf), total: Number(count!.total) };
  }

  async dueRuns(now: number, limit: number): Promise<WorkflowRun[]> {
    return (await this.sql.all(`SELECT ${RUN_COLUMNS} FROM workflow_runs WHERE ${DUE} ORDER BY created_at, id LIMIT $2`, [now, limit])).map(runOf);
  }

  async claimRun(id: string, now: number, until: number): Promise<boolean> {
    // SQLite numbers $n by first appearance: $1 comes first so that it is `now`.
    const changed = await this.sql.run(`UPDATE workflow_runs SET status = 'running', started_at = COALESCE(started_at, $1), lease_until = $2 WHERE id = $3 AND ${DUE}`, [now, until, id]);
    return changed === 1;
  }

  async renewLease(id: string, until: number): Promise<boolean> {
    return (await this.sql.run("UPDATE workflow_runs SET lease_until = $1 WHERE id = $2 AND status = 'running'", [until, id])) === 1;
  }

  async releaseRun(id: string): Promise<void> {
    await this.sql.run("UPDATE workflow_runs SET status = 'queued', lease_until = NULL WHERE id = $1 AND status = 'running'", [id]);
  }

  async finishRun(id: string, status: "succeeded" | "failed", result: unknown, at: number): Promise<void> {
    await this.sql.run("UPDATE workflow_runs SET status = $1, result = $2, finished_at = $3, lease_until = NULL WHERE id = $4 AND status = 'running'", [status, JSON.stringify(result), at, id]);
  }

  async putStep(s: StoredStep): Promise<void> {
    await this.sql.run("INSERT INTO workflow_steps (run_id, name, status, result, at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, name) DO NOTHING", [
      s.run_id, s.name, s.status, JSON.stringify(s.result), s.at,
    ]);
  }

  async steps(runId: string): Promise<StoredStep[]> {
    const rows = await this.sql.all("SELECT run_id, name, status, result, at FROM workflow_steps WHERE run_id = $1 ORDER BY at, name", [runId]);
    return rows.map((row) => ({ run_id: String(row.run_id), name: String(row.name), status: String(row.status), result: JSON.parse(String(row.result)), at: Number(row.at) }));
  }
}

function workflowOf(row: Row): DeployedWorkflow {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    name: String(row.name),
    version: Number(row.version),
    definition: JSON.parse(String(row.definition)),
    digest: String(row.digest),
    created_at: Number(row.created_at),
  };
}

function runOf(row: Row): WorkflowRun {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    workflow_id: String(row.workflow_id),
    workflow_name: String(row.workflow_name),
    version: Number(row.version),
    status: String(row.status) as WorkflowRunStatus,
    input: JSON.parse(String(row.input)),
    result: row.result == null ? null : JSON.parse(String(row.result)),
    created_at: Number(row.created_at),
    started_at: numberOrNull(row.started_at),
    finished_at: numberOrNull(row.finished_at),
    lease_until: numberOrNull(row.lease_until),
  };
}
