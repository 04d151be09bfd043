// The run log's reads and pruning on either driver; each driver adds its batch insert (and SQLite
// its writer thread: runs/sqlite.ts).
import type { RunRecord } from "../../core/run-record.ts";
import { fromModelTotalsRow, fromRunRow, fromTotalsRow, TOTALS_SELECT } from "../row.ts";
import { whereOf, type SqlConnection } from "../sql.ts";
import type { ModelTotals, RunLog, RunQuery, RunTotals, SeriesBucket } from "./types.ts";

export abstract class SqlRunLog implements RunLog {
  constructor(protected readonly sql: SqlConnection) {}

  abstract insertRuns(records: RunRecord[]): Promise<void>;
  /** Before runs are read or pruned: make every inserted run visible (a driver that commits later overrides it). */
  protected async settle(): Promise<void> {}

  async listRuns(q: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    await this.settle();
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

  async totals(since: number): Promise<RunTotals> {
    await this.settle();
    const [row] = await this.sql.all(`SELECT ${TOTALS_SELECT} FROM runs WHERE ts >= $1`, [since]);
    return fromTotalsRow(row);
  }

  async totalsByModel(since: number): Promise<ModelTotals[]> {
    await this.settle();
    const rows = await this.sql.all(
      `SELECT routed_model, provider, ${TOTALS_SELECT} FROM runs WHERE ts >= $1
       GROUP BY routed_model, provider ORDER BY requests DESC, routed_model, provider`,
      [since],
    );
    return rows.map(fromModelTotalsRow);
  }

  async latencies(since: number, max: number): Promise<number[]> {
    await this.settle();
    const rows = await this.sql.all(
      "SELECT latency_ms FROM runs WHERE ts >= $1 ORDER BY ts DESC, id DESC LIMIT $2",
      [since, max],
    );
    return rows.map((r) => Number(r.latency_ms));
  }

  async series(since: number, bucketMs: number): Promise<SeriesBucket[]> {
    await this.settle();
    // BIGINT casts make the division integral on both drivers (SQLite reads
    // any type name containing INT as integer affinity).
    const rows = await this.sql.all(
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
    await this.settle();
    return this.sql.run("DELETE FROM runs WHERE ts < $1", [before]);
  }
}
