// /v1/telemetry/*: what the run log says about traffic, spend, savings and
// provider health.
import { Elysia } from "elysia";
import { costOf } from "../../core/catalog/cost.ts";
import { needsKey, providerKey } from "../../core/router/credentials.ts";
import type { Relay } from "../../relay.ts";
import type { ModelTotals } from "../../store/types.ts";
import { adminGuard } from "../admin-auth.ts";
import { HttpError, json } from "../http.ts";
import * as docs from "../docs/operations/telemetry.ts";

const DAY_MS = 86_400_000;

/** A whole-number query parameter within bounds, or the spec's 400 naming it. */
export function intParam(url: URL, name: string, def: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new HttpError(400, "invalid_request", `Invalid ${name}: expected a whole number from ${min} to ${max}`, {
      details: { parameter: name, provided: raw, expected: `integer ${min}-${max}` },
    });
  }
  return Number(raw);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Traffic totals, success rate, latency percentiles and per-model rows since a time. */
export async function statsSince(relay: Relay, since: number) {
  const [totals, byModel, latencies] = await Promise.all([
    relay.store.totals(since),
    relay.store.totalsByModel(since),
    relay.store.latencies(since, 10_000),
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

/**
 * Savings against the baseline model: for each routed model, the same token
 * usage priced at the baseline's rates minus what it really cost. Cache reads
 * and writes are priced at each model's own cache rates on both sides, so a
 * cache discount is counted once (in both figures), never as routing savings.
 */
export async function savingsSince(relay: Relay, since: number) {
  const baselineName = relay.config().telemetry.baselineModel;
  const baseline = relay.catalog.resolve(baselineName);
  if (!baseline) throw new HttpError(400, "invalid_config", `telemetry.baselineModel "${baselineName}" is not in the catalog`);
  const byModel = await relay.store.totalsByModel(since);
  const baselineCostOf = (m: ModelTotals) =>
    costOf(baseline, { inputTokens: m.inputTokens, outputTokens: m.outputTokens, cacheReadTokens: m.cacheReadTokens, cacheWriteTokens: m.cacheWriteTokens });
  const models = byModel.map((m) => {
    const baselineUsd = baselineCostOf(m);
    return { model: m.model, provider: m.provider, requests: m.requests, actualUsd: m.costUsd, baselineUsd, savedUsd: baselineUsd - m.costUsd };
  });
  const actualUsd = models.reduce((s, m) => s + m.actualUsd, 0);
  const baselineUsd = models.reduce((s, m) => s + m.baselineUsd, 0);
  return {
    since: new Date(since).toISOString(),
    baselineModel: baseline.id,
    actualUsd,
    baselineUsd,
    savedUsd: baselineUsd - actualUsd,
    savedPercent: baselineUsd > 0 ? ((baselineUsd - actualUsd) / baselineUsd) * 100 : 0,
    formula: "sum over models of (usage priced at the baseline model's rates - actual cost); cache tokens priced at each side's cache rates",
    models,
  };
}

/** Per-provider state over the last hour: healthy, degraded, cooled_down or no_credentials. */
export async function health(relay: Relay) {
  const byModel = await relay.store.totalsByModel(Date.now() - 3_600_000);
  const cooldowns = new Map(relay.cooldown.snapshot().map((s) => [s.provider, s]));
  return {
    window: "1h",
    providers: [...relay.registry.providers.values()].map((p) => {
      const rows = byModel.filter((m) => m.provider === p.name);
      const requests = rows.reduce((s, r) => s + r.requests, 0);
      const errors = rows.reduce((s, r) => s + r.errors, 0);
      const cd = cooldowns.get(p.name);
      const hasKey = !needsKey(p) || providerKey(p, relay.config(), relay.env) !== undefined;
      const successRate = requests ? (requests - errors) / requests : null;
      const state =
        cd?.state === "cooled_down" ? "cooled_down" : !hasKey ? "no_credentials" : (cd?.recentFailures ?? 0) > 0 || (successRate !== null && successRate < 0.9) ? "degraded" : "healthy";
      return {
        provider: p.name,
        state,
        requests,
        successRate,
        recentFailures: cd?.recentFailures ?? 0,
        lastError: cd?.lastError ?? null,
        lastFailureAt: cd?.lastFailureAt ? new Date(cd.lastFailureAt).toISOString() : null,
        cooldownEndsAt: cd?.cooldownEndsAt ? new Date(cd.cooldownEndsAt).toISOString() : null,
      };
    }),
  };
}

export function telemetrySurface(relay: Relay) {
  // Run logs hold metadata and session keys: guarded like the admin routes off loopback.
  return new Elysia({ name: "telemetry" })
    .onBeforeHandle({ as: "local" }, adminGuard(() => relay.config()))
    .get("/v1/telemetry/stats", async ({ request }) => {
      const days = intParam(new URL(request.url), "days", 7, 1, 365);
      return json({ days, ...(await statsSince(relay, Date.now() - days * DAY_MS)) });
    }, { detail: docs.stats })
    .get("/v1/telemetry/runs", async ({ request }) => {
      const url = new URL(request.url);
      const limit = intParam(url, "limit", 50, 1, 1000);
      const offset = intParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
      const { runs, total } = await relay.store.listRuns({ limit, offset });
      return json({ runs, total, limit, offset });
    }, { detail: docs.runs })
    .get("/v1/telemetry/savings", async ({ request }) => {
      const days = intParam(new URL(request.url), "days", 7, 1, 365);
      return json({ days, ...(await savingsSince(relay, Date.now() - days * DAY_MS)) });
    }, { detail: docs.savings })
    .get("/v1/telemetry/health", async () => json(await health(relay)), { detail: docs.health });
}
