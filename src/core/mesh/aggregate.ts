// The cloud's read models over reported outcomes (src/store/mesh/): the mesh status per team and
// across all teams (GET /v1/status, which proxies pull), provider health across reports
// (GET /v1/telemetry/health), and the recommendation of POST /v1/route.
import type { ModelInfo } from "../../plugin/api.ts";
import type { MeshStore, OutcomeTotals } from "../../store/mesh/types.ts";

/** What the aggregates look back over. */
export const MESH_WINDOW_MS = 24 * 3_600_000;
/** Outcomes a model needs in a bucket before its success rate counts. */
export const MIN_REQUESTS = 5;
/** The success rate a recommended model must meet unless the request names another. */
export const DEFAULT_BAR = 0.9;

export interface ModelRow {
  model: string;
  provider: string;
  bucket: string;
  requests: number;
  errors: number;
  success_rate: number;
  latency_avg_ms: number;
  cost_usd: number;
  escalations: number;
}

const row = (t: OutcomeTotals): ModelRow => ({
  model: t.model,
  provider: t.provider,
  bucket: t.bucket,
  requests: t.requests,
  errors: t.errors,
  success_rate: t.requests ? (t.requests - t.errors) / t.requests : 0,
  latency_avg_ms: t.latencyAvgMs,
  cost_usd: t.costUsd,
  escalations: t.escalations,
});

async function scope(store: MeshStore, since: number, teamId?: string) {
  const [batches, totals] = await Promise.all([store.batchTotals(since, teamId), store.outcomeTotals(since, teamId)]);
  return {
    batches: batches.batches,
    items: batches.items,
    last_received_at: batches.lastReceivedAt === null ? null : new Date(batches.lastReceivedAt).toISOString(),
    models: totals.map(row),
  };
}

/** GET /v1/status: what the team reported, and what every team did (counts only: no team is named). */
export async function meshStatus(store: MeshStore, teamId: string, now: number) {
  const since = now - MESH_WINDOW_MS;
  const [team, global] = await Promise.all([scope(store, since, teamId), scope(store, since)]);
  return { window: "24h", since: new Date(since).toISOString(), min_requests: MIN_REQUESTS, team, global };
}

/** GET /v1/telemetry/health: each reported provider's outcomes across every team. */
export async function meshHealth(store: MeshStore, now: number) {
  const since = now - MESH_WINDOW_MS;
  const byProvider = new Map<string, { requests: number; errors: number }>();
  for (const t of await store.outcomeTotals(since)) {
    const p = byProvider.get(t.provider) ?? { requests: 0, errors: 0 };
    p.requests += t.requests;
    p.errors += t.errors;
    byProvider.set(t.provider, p);
  }
  const providers = [...byProvider].map(([provider, p]) => {
    const successRate = p.requests ? (p.requests - p.errors) / p.requests : null;
    const state = p.requests < MIN_REQUESTS ? "unknown" : successRate! >= DEFAULT_BAR ? "healthy" : "degraded";
    return { provider, state, requests: p.requests, errors: p.errors, successRate };
  });
  return { window: "24h", since: new Date(since).toISOString(), providers };
}

export interface RouteQuery {
  bucket: string;
  bar: number;
  /** Models the caller can use; all reported ones when absent. */
  candidates?: string[];
}

/**
 * POST /v1/route: of the models reported for the bucket with enough outcomes, the cheapest (by
 * the catalog's price) whose success rate meets the bar; the others that meet it follow.
 */
export async function recommend(store: MeshStore, q: RouteQuery, price: (m: ModelRow) => ModelInfo["price"] | undefined, now: number) {
  const rows = (await store.outcomeTotals(now - MESH_WINDOW_MS)).map(row).filter((r) => r.bucket === q.bucket && r.requests >= MIN_REQUESTS);
  const wanted = q.candidates && new Set(q.candidates);
  const cost = (r: ModelRow) => {
    const p = price(r);
    return p ? p.input + p.output : Number.POSITIVE_INFINITY;
  };
  const meeting = rows
    .filter((r) => r.success_rate >= q.bar && (!wanted || wanted.has(r.model) || wanted.has(`${r.provider}:${r.model}`)))
    .sort((a, b) => cost(a) - cost(b) || b.success_rate - a.success_rate);
  const pick = meeting[0];
  return {
    bucket: q.bucket,
    min_success_rate: q.bar,
    model: pick ? `${pick.provider}:${pick.model}` : null,
    reason: pick
      ? `cheapest model meeting ${Math.round(q.bar * 100)}% success for ${q.bucket} (${pick.requests - pick.errors}/${pick.requests} succeeded)`
      : `no model has ${MIN_REQUESTS}+ reported outcomes meeting ${Math.round(q.bar * 100)}% success for ${q.bucket}`,
    alternatives: meeting.slice(1, 5).map((r) => `${r.provider}:${r.model}`),
  };
}
