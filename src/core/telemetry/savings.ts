// Savings read model: what routing saved against the configured baseline model, from the run log.
import type { Config } from "../../config/schema.ts";
import type { ModelTotals, RunLog } from "../../store/runs/types.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { costOf } from "../catalog/cost.ts";
import { CoreError } from "../errors.ts";

export interface SavingsSource {
  store: { readonly runs: Pick<RunLog, "totalsByModel"> };
  catalog: Pick<Catalog, "resolve">;
  config(): Config;
}

/**
 * Savings against the baseline model: for each routed model, the same token
 * usage priced at the baseline's rates minus what it really cost. Cache reads
 * and writes are priced at each model's own cache rates on both sides, so a
 * cache discount is counted once (in both figures), never as routing savings.
 */
export async function savingsSince(source: SavingsSource, since: number) {
  const baselineName = source.config().telemetry.baselineModel;
  const baseline = source.catalog.resolve(baselineName);
  if (!baseline) throw new CoreError(400, "invalid_config", `telemetry.baselineModel "${baselineName}" is not in the catalog`);
  const byModel = await source.store.runs.totalsByModel(since);
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
