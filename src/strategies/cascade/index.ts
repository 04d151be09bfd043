// Cascade routing: `svc:cascade` tries the chain cheapest first and lets the router
// escalate when an answer fails or `judge` finds it unusable.

import { definePlugin, type Static, Type } from "../../plugin/api.ts";
import type { RouteInput, RoutePlan, StrategyContext } from "../../plugin/api.ts";
import { DEFAULT_TIER_MODELS, modelRef, requiredCapabilities, usableModels } from "../complexity/candidates.ts";
import { judge } from "./judge.ts";

const DEFAULT_CHAIN = [DEFAULT_TIER_MODELS.simple, DEFAULT_TIER_MODELS.moderate, DEFAULT_TIER_MODELS.complex];
const DEFAULT_MAX_ESCALATIONS = 2;

const CascadeOptions = Type.Object(
  {
    chain: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "model names, cheapest first" })),
    maxEscalations: Type.Optional(Type.Integer({ minimum: 0, description: "how many times a request may move up the chain" })),
  },
  { additionalProperties: false },
);
type CascadeOptions = Static<typeof CascadeOptions>;

function plan(input: RouteInput, ctx: StrategyContext<CascadeOptions>): RoutePlan {
  const { chain = DEFAULT_CHAIN, maxEscalations = DEFAULT_MAX_ESCALATIONS } = ctx.options;
  const needs = requiredCapabilities(input.request);
  const candidates = usableModels(chain, needs, ctx.catalog, ctx.isAvailable).map(modelRef);
  const reasons = [`cascade over ${candidates.length} of ${chain.length} chain models`];
  if (needs.length) reasons.push(`needs: ${needs.join(", ")}`);
  return { candidates, mode: "cascade", maxEscalations, reasons };
}

export default definePlugin({
  kind: "strategy",
  name: "cascade",
  description: "Tries a chain of models cheapest first, escalating on failures and uncertain answers",
  models: ["svc:cascade"],
  // Judging needs the whole answer, which a stream hands on as it comes (spec §3).
  streamStandIn: "complexity",
  options: CascadeOptions,
  plan,
  judge,
});
