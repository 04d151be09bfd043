// The mesh_outcomes and mesh_batches tables (migration 15) on either driver.
import { FAILURE_CLASSES, type MeshOutcome } from "../../core/mesh/outcome.ts";
import { numberOrNull, type SqlConnection } from "../sql.ts";
import type { BatchKind, BatchTotals, MeshStore, OutcomeTotals } from "./types.ts";

/** Rows per INSERT: 12 parameters each, well under either driver's limit. */
const CHUNK = 500;
const COLUMNS = "team_id, batch_id, seq, ts, model, provider, tier, bucket, class, latency_ms, cost_usd, escalations";
const FAILURES = [...FAILURE_CLASSES].map((c) => `'${c}'`).join(", ");

export class SqlMeshStore implements MeshStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertOutcomes(teamId: string, batchId: string, outcomes: MeshOutcome[]): Promise<void> {
    for (let start = 0; start < outcomes.length; start += CHUNK) {
      const chunk = outcomes.slice(start, start + CHUNK);
      const params: unknown[] = [];
      const rows = chunk.map((o, i) => {
        params.push(teamId, batchId, start + i, o.ts, o.model, o.provider, o.tier ?? null, o.bucket, o.class, o.latencyMs, o.costUsd, o.escalations);
        const base = i * 12;
        return `(${Array.from({ length: 12 }, (_, k) => `$${base + k + 1}`).join(", ")})`;
      });
      await this.sql.run(`INSERT INTO mesh_outcomes (${COLUMNS}) VALUES ${rows.join(", ")} ON CONFLICT DO NOTHING`, params);
    }
  }

  async recordBatch(teamId: string, kind: BatchKind, batchId: string, items: number, receivedAt: number): Promise<boolean> {
    const changed = await this.sql.run(
      "INSERT INTO mesh_batches (team_id, kind, batch_id, items, received_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
      [teamId, kind, batchId, items, receivedAt],
    );
    return changed > 0;
  }

  async outcomeTotals(since: number, teamId?: string): Promise<OutcomeTotals[]> {
    const team = teamId === undefined ? "" : " AND team_id = $2";
    const rows = await this.sql.all(
      `SELECT model, provider, bucket, COUNT(*) AS requests,
         SUM(CASE WHEN class IN (${FAILURES}) THEN 1 ELSE 0 END) AS errors,
         AVG(latency_ms) AS latency_avg, SUM(cost_usd) AS cost, SUM(escalations) AS escalations
       FROM mesh_outcomes WHERE ts >= $1${team} GROUP BY model, provider, bucket ORDER BY model, provider, bucket`,
      teamId === undefined ? [since] : [since, teamId],
    );
    return rows.map((r) => ({
      model: String(r.model),
      provider: String(r.provider),
      bucket: String(r.bucket),
      requests: Number(r.requests),
      errors: Number(r.errors),
      latencyAvgMs: Number(r.latency_avg),
      costUsd: Number(r.cost),
      escalations: Number(r.escalations),
    }));
  }

  async batchTotals(since: number, teamId?: string): Promise<BatchTotals> {
    const team = teamId === undefined ? "" : " AND team_id = $2";
    const [row] = await this.sql.all(
      `SELECT COUNT(*) AS batches, COALESCE(SUM(items), 0) AS items, MAX(received_at) AS last FROM mesh_batches WHERE received_at >= $1${team}`,
      teamId === undefined ? [since] : [since, teamId],
    );
    return { batches: Number(row!.batches), items: Number(row!.items), lastReceivedAt: numberOrNull(row!.last) };
  }

  async prune(before: number): Promise<number> {
    const pruned = await this.sql.run("DELETE FROM mesh_outcomes WHERE ts < $1", [before]);
    await this.sql.run("DELETE FROM mesh_batches WHERE received_at < $1", [before]);
    return pruned;
  }
}
