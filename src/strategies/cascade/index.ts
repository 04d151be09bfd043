// Cascade routing: `svc:cascade` tries the chain cheapest first and lets the router
// escalate when an answer fails or `judge` finds it unusable. Without a configured chain it climbs
// the ladder of the first provider that can serve the request (src/strategies/ladders.ts).

import { definePlugin, requestBucket, type Static, Type } from "../../plugin/api.ts";
import type { ModelInfo, RouteInput, RoutePlan, StrategyContext } from "../../plugin/api.ts";
import { covers, modelRef, type Need, requiredCapabilities, usableModels } from "../complexity/candidates.ts";
import { defaultLadders } from "../ladders.ts";
import { lazyBucket, skipFailing } from "../mesh.ts";
import { judge } from "./judge.ts";

const DEFAULT_MAX_ESCALATIONS = 2;

const CascadeOptions = Type.Object(
  {
    chain: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "model names, cheapest first; unset = the first available provider's cheapest to strongest tier models" })),
    maxEscalations: Type.Optional(Type.Integer({ minimum: 0, description: "how many times a request may move up the chain" })),
  },
  { additionalProperties: false },
);
type CascadeOptions = Static<typeof CascadeOptions>;

type Chosen = { candidates: ModelInfo[]; reason: string };

function configuredChain(chain: string[], needs: Need[], ctx: StrategyContext<CascadeOptions>): Chosen {
  const candidates = usableModels(chain, needs, ctx.catalog, ctx.isAvailable);
  return { candidates, reason: `cascade over ${candidates.length} of ${chain.length} chain models` };
}

/**
 * No configured chain: the first provider's ladder (cheapest to strongest) with a model that can
 * serve the request, so the chain escalates within the vendor whose key is there.
 */
function defaultChain(needs: Need[], ctx: StrategyContext<CascadeOptions>): Chosen {
  for (const ladder of defaultLadders(ctx.catalog)) {
    const candidates: ModelInfo[] = [];
    for (const m of ladder.models) if (ctx.isAvailable(m) && covers(m, needs)) candidates.push(m);
    if (candidates.length) return { candidates, reason: `cascade over the default ${ladder.provider} chain (${candidates.length} of ${ladder.models.length} models)` };
  }
  return { candidates: [], reason: "default chain: no provider with a key and out of cooldown has a capable model" };
}

function plan(input: RouteInput, ctx: StrategyContext<CascadeOptions>): RoutePlan {
  const { chain, maxEscalations = DEFAULT_MAX_ESCALATIONS } = ctx.options;
  const needs = requiredCapabilities(input.request);
  const { candidates, reason } = chain ? configuredChain(chain, needs, ctx) : defaultChain(needs, ctx);
  const reasons = [reason];
  if (needs.length) reasons.push(`needs: ${needs.join(", ")}`);
  // A cascade has no tier: its runs are reported in the `none` buckets.
  const bucket = lazyBucket(() => requestBucket(undefined, ctx.estimateTokens(input.request)));
  return { candidates: skipFailing(candidates, bucket, ctx, reasons).map(modelRef), mode: "cascade", maxEscalations, reasons };
}

export default definePlugin({
  kind: "strategy",
  name: "cascade",
  description: "Tries a chain of models cheapest first, escalating on failures and uncertain answers",
  models: ["svc:cascade"],
  modelDescriptions: {
    "svc:cascade": "Tries a chain cheapest first (by default the first keyed provider's own models), escalating on failures and uncertain answers; streams use svc:auto",
  },
  // Judging needs the whole answer, which a stream hands on as it comes (spec §3).
  streamStandIn: "complexity",
  options: CascadeOptions,
  plan,
  judge,
});
