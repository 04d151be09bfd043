// The benchmark_runs and benchmark_results tables (migration 14) on either driver. A run is claimed by
// a compare-and-set on its status and lease (claimRun), the same statement on SQLite and Postgres; a
// result's primary key (run, model, prompt) keeps a resumed run from recording a call twice.
import { numberOrNull, textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { BenchmarkResult, BenchmarkRun, BenchmarkStatus, BenchmarkStore, PromptSet, SetResult } from "./types.ts";

const RUN_COLUMNS = "id, team_id, status, reason, models, set_name, prompt_set, max_tokens, spend_cap_usd, spent_usd, created_at, started_at, finished_at, lease_until";
const RESULT_COLUMNS = "run_id, team_id, model, prompt_id, request_id, at, success, status, error, latency_ms, cost_usd, input_tokens, output_tokens, score, output";
const DUE = "(status = 'queued' OR (status = 'running' AND lease_until < $1))";

export class SqlBenchmarkStore implements BenchmarkStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertRun(r: BenchmarkRun): Promise<void> {
    await this.sql.run(`INSERT INTO benchmark_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, [
      r.id, r.team_id, r.status, r.reason, JSON.stringify(r.models), r.prompt_set.name, JSON.stringify(r.prompt_set),
      r.max_tokens, r.spend_cap_usd, r.spent_usd, r.created_at, r.started_at, r.finished_at, r.lease_until,
    ]);
  }

  async getRun(id: string): Promise<BenchmarkRun | undefined> {
    const row = await this.sql.one(`SELECT ${RUN_COLUMNS} FROM benchmark_runs WHERE id = $1`, [id]);
    return row ? runOf(row) : undefined;
  }

  async listRuns(teamId: string, limit: number, offset: number) {
    const rows = await this.sql.all(`SELECT ${RUN_COLUMNS} FROM benchmark_runs WHERE team_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [teamId, limit, offset]);
    const [count] = await this.sql.all("SELECT COUNT(*) AS total FROM benchmark_runs WHERE team_id = $1", [teamId]);
    return { runs: rows.map(runOf), total: Number(count!.total) };
  }

  async dueRuns(now: number, limit: number): Promise<BenchmarkRun[]> {
    const rows = await this.sql.all(`SELECT ${RUN_COLUMNS} FROM benchmark_runs WHERE ${DUE} ORDER BY created_at, id LIMIT $2`, [now, limit]);
    return rows.map(runOf);
  }

  async claimRun(id: string, now: number, until: number): Promise<boolean> {
    // SQLite numbers $n by first appearance: $1 must come first to be `now` (else started_at got `until`).
    const changed = await this.sql.run(
      `UPDATE benchmark_runs SET status = 'running', started_at = COALESCE(started_at, $1), lease_until = $2,
       spent_usd = (SELECT COALESCE(SUM(cost_usd), 0) FROM benchmark_results WHERE run_id = $3) WHERE id = $3 AND ${DUE}`,
      [now, until, id],
    );
    return changed === 1;
  }

  async renewLease(id: string, until: number): Promise<boolean> {
    return (await this.sql.run("UPDATE benchmark_runs SET lease_until = $1 WHERE id = $2 AND status = 'running'", [until, id])) === 1;
  }

  async releaseRun(id: string): Promise<void> {
    await this.sql.run("UPDATE benchmark_runs SET status = 'queued', lease_until = NULL WHERE id = $1 AND status = 'running'", [id]);
  }

  async finishRun(id: string, status: "succeeded" | "failed" | "stopped", reason: string | null, at: number): Promise<void> {
    await this.sql.run("UPDATE benchmark_runs SET status = $1, reason = $2, finished_at = $3, lease_until = NULL WHERE id = $4 AND status = 'running'", [status, reason, at, id]);
  }

  async insertResult(r: BenchmarkResult): Promise<boolean> {
    const added = await this.sql.run(
      `INSERT INTO benchmark_results (${RESULT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (run_id, model, prompt_id) DO NOTHING`,
      [r.run_id, r.team_id, r.model, r.prompt_id, r.request_id, r.at, r.success, r.status, r.error, r.latency_ms, r.cost_usd, r.input_tokens, r.output_tokens, r.score, r.output],
    );
    if (added === 0) return false;
    // Added to, as concurrent calls' updates are safe to be (a sum read beside another call's insert
    // could miss it); a crash between the two statements is set right when the run is claimed again.
    await this.sql.run("UPDATE benchmark_runs SET spent_usd = spent_usd + $1 WHERE id = $2", [r.cost_usd, r.run_id]);
    return true;
  }

  async runResults(runId: string): Promise<BenchmarkResult[]> {
    return (await this.sql.all(`SELECT ${RESULT_COLUMNS} FROM benchmark_results WHERE run_id = $1 ORDER BY model, prompt_id`, [runId])).map(resultOf);
  }

  async modelResults(teamId: string, model: string, setName: string | undefined, limit: number): Promise<SetResult[]> {
    const columns = RESULT_COLUMNS.split(", ").map((c) => `r.${c}`).join(", ");
    const params: unknown[] = setName === undefined ? [teamId, model] : [teamId, model, setName];
    const bySet = setName === undefined ? "" : " AND b.set_name = $3";
    const rows = await this.sql.all(
      `SELECT ${columns}, b.set_name FROM benchmark_results r JOIN benchmark_runs b ON b.id = r.run_id
       WHERE r.team_id = $1 AND r.model = $2${bySet} ORDER BY r.at DESC, r.run_id, r.prompt_id LIMIT $${params.length + 1}`,
      [...params, limit],
    );
    return rows.map((row) => ({ ...resultOf(row), set_name: String(row.set_name) }));
  }

  async modelRuns(teamId: string, model: string, limit: number, offset: number) {
    const called = "SELECT run_id FROM benchmark_results WHERE team_id = $1 AND model = $2";
    const rows = await this.sql.all(
      `SELECT ${RUN_COLUMNS} FROM benchmark_runs WHERE id IN (${called}) ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [teamId, model, limit, offset],
    );
    const [count] = await this.sql.all(`SELECT COUNT(DISTINCT run_id) AS total FROM benchmark_results WHERE team_id = $1 AND model = $2`, [teamId, model]);
    return { runs: rows.map(runOf), total: Number(count!.total) };
  }

  async resultsOf(runIds: string[], model: string): Promise<BenchmarkResult[]> {
    if (runIds.length === 0) return [];
    const marks = runIds.map((_, i) => `$${i + 2}`).join(", ");
    const rows = await this.sql.all(`SELECT ${RESULT_COLUMNS} FROM benchmark_results WHERE model = $1 AND run_id IN (${marks}) ORDER BY run_id, prompt_id`, [model, ...runIds]);
    return rows.map(resultOf);
  }
}


function runOf(row: Row): BenchmarkRun {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    status: String(row.status) as BenchmarkStatus,
    reason: textOrNull(row.reason),
    models: JSON.parse(String(row.models)) as string[],
    prompt_set: JSON.parse(String(row.prompt_set)) as PromptSet,
    max_tokens: Number(row.max_tokens),
    spend_cap_usd: Number(row.spend_cap_usd),
    spent_usd: Number(row.spent_usd),
    created_at: Number(row.created_at),
    started_at: numberOrNull(row.started_at),
    finished_at: numberOrNull(row.finished_at),
    lease_until: numberOrNull(row.lease_until),
  };
}

function resultOf(row: Row): BenchmarkResult {
  return {
    run_id: String(row.run_id),
    team_id: String(row.team_id),
    model: String(row.model),
    prompt_id: String(row.prompt_id),
    request_id: String(row.request_id),
    at: Number(row.at),
    success: Boolean(row.success),
    status: Number(row.status),
    error: textOrNull(row.error),
    latency_ms: Number(row.latency_ms),
    cost_usd: Number(row.cost_usd),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    score: numberOrNull(row.score),
    output: String(row.output),
  };
}
