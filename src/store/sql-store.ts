// Store behaviour common to both drivers. The SQL below runs unchanged on
// SQLite and Postgres (both accept `$n` placeholders); each driver supplies
// only execution, the batch insert, migrations and lifecycle.

import { LATEST_VERSION, type Dialect } from "./migrations.ts";
import { fromAgentRow, fromModelTotalsRow, fromRunRow, fromTotalsRow, TOTALS_SELECT } from "./row.ts";
import type { Agent, ModelTotals, RunQuery, RunRecord, RunTotals, SeriesBucket, Store } from "./types.ts";

export type Row = Record<string, unknown>;

// Counters are stored as text; SQLite's `+` coerces text to numbers itself,
// Postgres needs explicit casts.
const INCR_SUM: Record<Dialect, string> = {
  sqlite: "kv.value + excluded.value",
  postgres: "(kv.value::double precision + excluded.value::double precision)::text",
};

/** A key's value: one row by its primary key (both drivers; SQLite reads it on its main connection). */
export const SELECT_KV = "SELECT value FROM kv WHERE key = $1";
export const kvValue = (row: Row | null | undefined): string | undefined => (row ? String(row.value) : undefined);

/** Adds $2 to the counter $1 (created at $2), returning the new value. */
export function incrStatement(dialect: Dialect): string {
  return `INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = ${INCR_SUM[dialect]} RETURNING value`;
}

/** WHERE clause and its parameters, built in a fixed column order. */
function whereOf(conditions: [column: string, value: unknown][]): { where: string; params: unknown[] } {
  const present = conditions.filter(([, value]) => value !== undefined);
  if (present.length === 0) return { where: "", params: [] };
  const clauses = present.map(([column], i) => `${column} $${i + 1}`);
  return { where: ` WHERE ${clauses.join(" AND ")}`, params: present.map(([, value]) => value) };
}

export abstract class SqlStore implements Store {
  abstract readonly driver: Dialect;

  /** Rows of a query. */
  protected abstract all(text: string, params: unknown[]): Promise<Row[]>;
  /** Runs a statement; returns the number of rows it changed. */
  protected abstract run(text: string, params: unknown[]): Promise<number>;
  /** Driver-level health check, before the migration version check. */
  protected abstract storageIntact(): Promise<boolean>;

  abstract insertRuns(records: RunRecord[]): Promise<void>;
  /** Before runs are read or pruned: make every inserted run visible (a driver that commits later overrides it). */
  protected async settleRuns(): Promise<void> {}
  abstract migrate(): Promise<void>;
  abstract close(): Promise<void>;

  async listRuns(q: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    await this.settleRuns();
    const { where, params } = whereOf([
      ["ts >=", q.since],
      ["routed_model =", q.model],
      ["provider =", q.provider],
      ["status =", q.status],
      ["session_key =", q.sessionKey],
    ]);
    const n = params.length;
    // The total in the page's own statement, so both come from one snapshot: as two statements, a
    // prune or an insert committed between them gave a total that disagreed with the page (a flaky
    // retention test). The uncorrelated subquery runs once. A page past the end has no row to carry
    // it, so only then is the total counted on its own.
    const count = `SELECT COUNT(*) AS total FROM runs${where}`;
    const rows = await this.all(
      `SELECT *, (${count}) AS page_total FROM runs${where} ORDER BY ts DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    );
    if (rows.length === 0) return { runs: [], total: Number((await this.all(count, params))[0]!.total) };
    return { runs: rows.map(fromRunRow), total: Number(rows[0]!.page_total) };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    await this.settleRuns();
    const [row] = await this.all("SELECT * FROM runs WHERE id = $1", [id]);
    return row ? fromRunRow(row) : undefined;
  }

  async totals(since: number): Promise<RunTotals> {
    await this.settleRuns();
    const [row] = await this.all(`SELECT ${TOTALS_SELECT} FROM runs WHERE ts >= $1`, [since]);
    return fromTotalsRow(row);
  }

  async totalsByModel(since: number): Promise<ModelTotals[]> {
    await this.settleRuns();
    const rows = await this.all(
      `SELECT routed_model, provider, ${TOTALS_SELECT} FROM runs WHERE ts >= $1
       GROUP BY routed_model, provider ORDER BY requests DESC, routed_model, provider`,
      [since],
    );
    return rows.map(fromModelTotalsRow);
  }

  async latencies(since: number, max: number): Promise<number[]> {
    await this.settleRuns();
    const rows = await this.all(
      "SELECT latency_ms FROM runs WHERE ts >= $1 ORDER BY ts DESC, id DESC LIMIT $2",
      [since, max],
    );
    return rows.map((r) => Number(r.latency_ms));
  }

  async series(since: number, bucketMs: number): Promise<SeriesBucket[]> {
    await this.settleRuns();
    // BIGINT casts make the division integral on both drivers (SQLite reads
    // any type name containing INT as integer affinity).
    const rows = await this.all(
      `SELECT CAST($1 AS BIGINT) + ((ts - CAST($1 AS BIGINT)) / CAST($2 AS BIGINT)) * CAST($2 AS BIGINT) AS bucket,
         ${TOTALS_SELECT}, AVG(latency_ms) AS latency_avg, MAX(latency_ms) AS latency_max
       FROM runs WHERE ts >= $1 GROUP BY bucket ORDER BY bucket`,
      [since, bucketMs],
    );
    return rows.map((r) => ({
      ts: Number(r.bucket),
      ...fromTotalsRow(r),
      latencyAvgMs: Number(r.latency_avg),
      latencyMaxMs: Number(r.latency_max),
    }));
  }

  async prune(before: number): Promise<number> {
    await this.settleRuns();
    return this.run("DELETE FROM runs WHERE ts < $1", [before]);
  }

  async getKv(key: string): Promise<string | undefined> {
    return kvValue((await this.all(SELECT_KV, [key]))[0]);
  }

  async setKv(key: string, value: string): Promise<void> {
    await this.run(
      "INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [key, value],
    );
  }

  async incrBy(key: string, delta: number): Promise<number> {
    const [row] = await this.all(incrStatement(this.driver), [key, String(delta)]);
    return Number(row.value);
  }

  async insertAgent(agent: Agent): Promise<void> {
    await this.run(
      `INSERT INTO agents (id, name, capability, description, endpoint, protocol, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [agent.id, agent.name, agent.capability, agent.description, agent.endpoint, agent.protocol, agent.created_at],
    );
  }

  async listAgents(q: { capability?: string; limit: number; offset: number }): Promise<{ agents: Agent[]; total: number }> {
    const { where, params } = whereOf([["capability =", q.capability]]);
    const n = params.length;
    const rows = await this.all(
      `SELECT * FROM agents${where} ORDER BY created_at, id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    );
    const [count] = await this.all(`SELECT COUNT(*) AS total FROM agents${where}`, params);
    return { agents: rows.map(fromAgentRow), total: Number(count.total) };
  }

  async integrityCheck(): Promise<boolean> {
    if (!(await this.storageIntact())) return false;
    const [row] = await this.all("SELECT MAX(version) AS version FROM schema_migrations", []);
    return Number(row.version) === LATEST_VERSION;
  }
}
