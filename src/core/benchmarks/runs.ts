// A benchmark run asked for (POST /api/v1/benchmarks/run; README "Model benchmarks"): its body checked, each
// refusal a 400 naming the field, and the run queued for the runner (runner.ts).
import type { BenchmarkRun } from "../../store/benchmarks/types.ts";
import type { Team } from "../../store/teams/types.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { prefixedId } from "../ids.ts";
import { array, invalid, text } from "../registry/fields.ts";
import { PLANS } from "../tenancy/plans.ts";
import { promptSetField } from "./prompt-sets.ts";

export const MAX_MODELS = 5;
export const DEFAULT_MAX_TOKENS = 256;
const MAX_MAX_TOKENS = 4_096;
/** The spend cap of a run that sets none, unless its plan allows less. */
export const DEFAULT_SPEND_CAP_USD = 1;

/** A run of `team` as the body asks for it, queued at `now`. */
export function newRun(catalog: Catalog, team: Team, body: Record<string, unknown>, now: number): BenchmarkRun {
  const models = modelsField(catalog, body.models);
  const prompt_set = promptSetField(body.prompt_set);
  const maxCap = PLANS[team.plan].benchmarkMaxSpendUsd;
  return {
    id: prefixedId("bench"),
    team_id: team.id,
    status: "queued",
    reason: null,
    models,
    prompt_set,
    max_tokens: body.max_tokens === undefined ? DEFAULT_MAX_TOKENS : integer(body.max_tokens, "max_tokens", 1, MAX_MAX_TOKENS),
    spend_cap_usd: body.spend_cap_usd === undefined ? Math.min(DEFAULT_SPEND_CAP_USD, maxCap) : spendCap(body.spend_cap_usd, maxCap, team.plan),
    spent_usd: 0,
    created_at: now,
    started_at: null,
    finished_at: null,
    lease_until: null,
  };
}

/** 1 to MAX_MODELS distinct models the catalog knows. */
function modelsField(catalog: Catalog, value: unknown): string[] {
  const items = array(value, "models", MAX_MODELS);
  if (items.length === 0) throw invalid("models", value, "array", `must name 1 to ${MAX_MODELS} models`);
  const models = items.map((v, i) => text(v, `models[${i}]`, 256));
  models.forEach((m, i) => {
    if (!catalog.resolve(m)) {
      const near = catalog.suggest(m);
      throw invalid(`models[${i}]`, m, "string", `is not a model of the catalog${near.length ? ` (did you mean ${near.join(", ")}?)` : ""}`);
    }
    if (models.indexOf(m) !== i) throw invalid(`models[${i}]`, m, "string", "is named twice");
  });
  return models;
}

function integer(value: unknown, parameter: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw invalid(parameter, value, "integer", `must be an integer from ${min} to ${max}`);
  return value as number;
}

function spendCap(value: unknown, max: number, plan: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > max) {
    throw invalid("spend_cap_usd", value, "number", `must be a number of USD above 0 and at most ${max} (the ${plan} plan's highest cap for a run)`);
  }
  return value;
}
