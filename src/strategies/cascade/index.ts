// Cascade routing: `svc:cascade` tries the chain cheapest first and lets the router
// escalate when an answer fails or `judge` finds it unusable.

import { definePlugin } from "../../plugin/api.ts";
import type { RouteInput, RoutePlan, StrategyContext } from "../../plugin/api.ts";
import { DEFAULT_TIER_MODELS, modelRef, requiredCapabilities, usableModels } from "../complexity/candidates.ts";
import { judge } from "./judge.ts";

const DEFAULT_CHAIN = [DEFAULT_TIER_MODELS.simple, DEFAULT_TIER_MODELS.moderate, DEFAULT_TIER_MODELS.complex];
const DEFAULT_MAX_ESCALATIONS = 2;

interface CascadeOptions {
  chain: string[];
  maxEscalations: number;
}

function readOptions(options: Record<string, unknown>): CascadeOptions {
  const { chain = DEFAULT_CHAIN, maxEscalations = DEFAULT_MAX_ESCALATIONS } = options;
  if (!Array.isArray(chain) || chain.length === 0 || !chain.every((n) => typeof n === "string" && n))
    throw new TypeError("cascade: options.chain must be a non-empty list of model names");
  if (typeof maxEscalations !== "number" || !Number.isInteger(maxEscalations) || maxEscalations < 0)
    throw new TypeError("cascade: options.maxEscalations must be a non-negative integer");
  return { chain, maxEscalations };
}

function plan(input: RouteInput, ctx: StrategyContext): RoutePlan {
  const opts = readOptions(ctx.options);
  const needs = requiredCapabilities(input.request);
  const candidates = usableModels(opts.chain, needs, ctx.catalog, ctx.isAvailable).map(modelRef);
  const reasons = [`cascade over ${candidates.length} of ${opts.chain.length} chain models`];
  if (needs.length) reasons.push(`needs: ${needs.join(", ")}`);
  return { candidates, mode: "cascade", maxEscalations: opts.maxEscalations, reasons };
}

export default definePlugin({
  kind: "strategy",
  name: "cascade",
  description: "Tries a chain of models cheapest first, escalating on failures and uncertain answers",
  models: ["svc:cascade"],
  plan,
  judge,
});
