// Traffic read model: what the run log says about requests, errors, cost and latency since a time.
// In the core so that every surface (telemetry API, dashboard, hosted API) reads the same figures.
import type { RunLog } from "../../store/runs/types.ts";

export interface StatsSource {
  store: { readonly runs: Pick<RunLog, "totals" | "totalsByModel" | "latencies"> };
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Traffic totals, success rate, latency percentiles and per-model rows since a time. */
export async function statsSince(source: StatsSource, since: number) {
  const [totals, byModel, latencies] = await Promise.all([
    source.store.runs.totals(since),
    source.store.runs.totalsByModel(since),
    source.store.runs.latencies(since, 10_000),
  ]);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    since: new Date(since).toISOString(),
    ...totals,
    successRate: totals.requests ? (totals.requests - totals.errors) / totals.requests : null,
    latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) },
    models: byModel,
  };
}
