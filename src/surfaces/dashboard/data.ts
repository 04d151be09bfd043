// What the dashboard's JSON endpoints answer. Traffic figures come from the
// core's read models (src/core/telemetry/); this module only shapes them per range.
import type { Relay } from "../../relay.ts";
import { modelRateLimits } from "../../core/limits/model-rate.ts";
import type { ModelInfo } from "../../plugin/api.ts";
import { costUnknown, type RunRecord } from "../../core/run-record.ts";
import type { SeriesBucket } from "../../store/runs/types.ts";
import { CoreError } from "../../core/errors.ts";
import { health } from "../../core/telemetry/health.ts";
import { savingsSince } from "../../core/telemetry/savings.ts";
import { statsSince } from "../../core/telemetry/stats.ts";
import { intParam } from "../query.ts";
import { RANGES, type RangeName } from "./ranges.ts";

export async function summary(relay: Relay, range: RangeName) {
  const since = Date.now() - RANGES[range].ms;
  const [stats, savings] = await Promise.all([
    statsSince(relay, since),
    // A baseline missing from the catalog hides the savings card, not the page.
    savingsSince(relay, since).catch((e: unknown) => {
      if (e instanceof CoreError) return { error: e.message };
      throw e;
    }),
  ]);
  // No timestamps in the answer: unchanged traffic keeps its ETag between polls.
  return {
    range,
    requests: stats.requests,
    errors: stats.errors,
    fallbacks: stats.fallbacks,
    successRate: stats.successRate,
    costUsd: stats.costUsd,
    latencyMs: { p50: stats.latencyMs.p50, p95: stats.latencyMs.p95 },
    savings: "error" in savings
      ? savings
      : { baselineModel: savings.baselineModel, savedUsd: savings.savedUsd, savedPercent: savings.savedPercent, baselineUsd: savings.baselineUsd },
    models: stats.models.map((m) => ({ model: m.model, provider: m.provider, requests: m.requests, costUsd: m.costUsd })),
  };
}

/** Chart points for the range, one per bucket, empty buckets as zero traffic. */
export async function series(relay: Relay, range: RangeName) {
  const { ms, bucketMs } = RANGES[range];
  const now = Date.now();
  const start = Math.floor((now - ms) / bucketMs) * bucketMs;
  const byTs = new Map((await relay.store.runs.series(start, bucketMs)).map((b) => [b.ts, b]));
  const points = [];
  for (let ts = start; ts <= now; ts += bucketMs) {
    const b: SeriesBucket | undefined = byTs.get(ts);
    points.push({
      ts,
      requests: b?.requests ?? 0,
      errors: b?.errors ?? 0,
      costUsd: b?.costUsd ?? 0,
      latencyAvgMs: b ? b.latencyAvgMs : null,
      latencyMaxMs: b ? b.latencyMaxMs : null,
    });
  }
  return { range, bucketMs, points };
}

const optionalText = (url: URL, name: string): string | undefined => url.searchParams.get(name)?.trim() || undefined;

/** One page of the request log, newest first, with the store's filters. */
export async function runs(relay: Relay, url: URL) {
  const limit = intParam(url, "limit", 25, 1, 200);
  const offset = intParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  const status = url.searchParams.get("status") ? intParam(url, "status", 0, 100, 599) : undefined;
  const page = await relay.store.runs.listRuns({
    limit,
    offset,
    model: optionalText(url, "model"),
    provider: optionalText(url, "provider"),
    status,
    sessionKey: optionalText(url, "session"),
  });
  return { runs: page.runs.map(logRow), total: page.total, limit, offset };
}

/** The columns of the log table; the drawer fetches the whole record. */
const logRow = (r: RunRecord) => ({
  id: r.id,
  ts: r.ts,
  requestedModel: r.requestedModel,
  routedModel: r.routedModel,
  provider: r.provider,
  strategy: r.strategy,
  status: r.status,
  outcome: r.outcome,
  stream: r.stream,
  latencyMs: r.latencyMs,
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  costUsd: r.costUsd,
  sessionKey: r.sessionKey ?? null,
  costUnknown: costUnknown(r),
});

/** The whole record, and whether its cost is unknown (an unpriced model: its costUsd of 0 is not a price). */
export async function run(relay: Relay, id: string): Promise<RunRecord & { costUnknown: boolean }> {
  const r = await relay.store.runs.getRun(id);
  if (!r) throw new CoreError(404, "not_found", `No run with id ${id}`);
  return { ...r, costUnknown: costUnknown(r) };
}

/** Requests-per-minute headroom of each model with a limit: configured ones and, under a default limit, those seen in the last hour. */
async function headroom(relay: Relay) {
  const limits = relay.config().limits;
  const catalog = relay.catalog;
  // The same keys and limits the router's pipeline acquires with: one row per canonical model.
  const rates = modelRateLimits(catalog, limits);
  const models = new Map<string, ModelInfo>();
  const add = (name: string) => {
    const m = catalog.resolve(name);
    if (m) models.set(rates.of(m).key, catalog.canonical(m));
  };
  for (const name of Object.keys(limits.rpm)) add(name);
  if (limits.rpmDefault > 0) {
    for (const m of await relay.store.runs.totalsByModel(Date.now() - 3_600_000)) add(`${m.provider}:${m.model}`);
  }
  const rows = [];
  for (const model of models.values()) {
    const { key, limit } = rates.of(model);
    if (limit <= 0) continue;
    const d = await relay.rate.peek(key, limit);
    rows.push({ model: model.id, provider: model.provider, limit, remaining: d.remaining, resetSec: d.resetSec });
  }
  return rows;
}

/** The fast-moving state: routing switch, provider health, budgets and rate headroom. */
export async function live(relay: Relay) {
  const [providers, budget, rate] = await Promise.all([health(relay), relay.budget.status(), headroom(relay)]);
  return { now: Date.now(), routing: relay.control.snapshot(), providers: providers.providers, budget, rate };
}
