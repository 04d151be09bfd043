// The run log's reads and pruning on either driver; each driver adds its batch insert (and SQLite
// its writer thread: runs/sqlite.ts).
import type { RunRecord } from "../../core/run-record.ts";
import { fromModelTotalsRow, fromRunRow, fromTotalsRow, TOTALS_SELECT } from "../row.ts";
import { whereOf, type SqlConnection } from "../sql.ts";
import type { ModelTotals, RunLog, RunQuery, RunTotals, SeriesBucket } from "./types.ts";

/** The window and team the totals read. */
const scopeOf = (since: number, teamId: string | undefined, until: number | undefined) =>
  whereOf([
    ["ts >=", since],
    ["ts <=", until],
    ["team_id =", teamId],
  ]);

/** Which runs a prune with or without a team deletes (the partial index runs_team_ts serves the first). */
const pruneScope = (team: string | undefined): string => (team === undefined ? "team_id IS NULL" : "team_id = $2");

export abstract class SqlRunLog implements RunLog {
  constructor(protected readonly sql: SqlConnection) {}

  abstract insertRuns(records: RunRecord[]): Promise<void>;
  /** Before runs are read or pruned: make every inserted run visible (a driver that commits later overrides it). */
  protected async settle(): Promise<void> {}

  async listRuns(q: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    await this.settle();
    const { where, params } = whereOf([
      ["ts >=", q.since],
      ["ts <=", q.until],
      ["team_id =", q.teamId],
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
    const rows = await this.sql.all(
      `SELECT *, (${count}) AS page_total FROM runs${where} ORDER BY ts DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    );
    if (rows.length === 0) return { runs: [], total: Number((await this.sql.all(count, params))[0]!.total) };
    return { runs: rows.map(fromRunRow), total: Number(rows[0]!.page_total) };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    await this.settle();
    const [row] = await this.sql.all("SELECT * FROM runs WHERE id = $1", [id]);
    return row ? fromRunRow(row) : undefined;
  }

  async totals(since: number, teamId?: string, until?: number): Promise<RunTotals> {
    await this.settle();
    const { where, params } = scopeOf(since, teamId, until);
    const [row] = await this.sql.all(`SELECT ${TOTALS_SELECT} FROM runs${where}`, params);
    return fromTotalsRow(row);
  }

  async totalsByModel(since: number, teamId?: string, until?: number): Promise<ModelTotals[]> {
    await this.settle();
    const { where, params } = scopeOf(since, teamId, until);
    const rows = await this.sql.all(
      `SELECT routed_model, provider, ${TOTALS_SELECT} FROM runs${where}
       GROUP BY routed_model, provider ORDER BY requests DESC, routed_model, provider`,
      params,
    );
    return rows.map(fromModelTotalsRow);
  }

  async latencies(since: number, max: number, teamId?: string): Promise<number[]> {
    await this.settle();
    // Placeholders in the order they appear: the SQLite reader binds them by position.
    const team = teamId === undefined ? "" : " AND team_id = $2";
    const rows = await this.sql.all(
      `SELECT latency_ms FROM runs WHERE ts >= $1${team} ORDER BY ts DESC, id DESC LIMIT $${teamId === undefined ? 2 : 3}`,
      teamId === undefined ? [since, max] : [since, teamId, max],
    );
    return rows.map((r) => Number(r.latency_ms));
  }

  async series(since: number, bucketMs: number, teamId?: string): Promise<SeriesBucket[]> {
    await this.settle();
    const team = teamId === undefined ? "" : " AND team_id = $3";
    // BIGINT casts make the division integral on both drivers (SQLite reads
    // any type name containing INT as integer affinity).
    const rows = await this.sql.all(
      `SELECT CAST($1 AS BIGINT) + ((ts - CAST($1 AS BIGINT)) / CAST($2 AS BIGINT)) * CAST($2 AS BIGINT) AS bucket,
         ${TOTALS_SELECT}, AVG(latency_ms) AS latency_avg, MAX(latency_ms) AS latency_max
       FROM runs WHERE ts >= $1${team} GROUP BY bucket ORDER BY bucket`,
      teamId === undefined ? [since, bucketMs] : [since, bucketMs, teamId],
    );
    return rows.map((r) => ({
      ts: Number(r.bucket),
      ...fromTotalsRow(r),
      latencyAvgMs: Number(r.latency_avg),
      latencyMaxMs: Number(r.latency_max),
    }));
  }

  async prune(before: number, team?: string): Promise<number> {
    await this.settle();
    return this.sql.run(`DELETE FROM runs WHERE ts < $1 AND ${pruneScope(team)}`, team === undefined ? [before] : [before, team]);
  }
}
