// Fallback routing for concrete model names: the requested model, then its
// configured backups. Unavailable models are moved to the end rather than dropped,
// so the router can still try them (or report why) when nothing else is left.

import { definePlugin, type Static, Type } from "../../plugin/api.ts";
import type { RouteInput, RoutePlan, StrategyContext } from "../../plugin/api.ts";
import { modelRef } from "../complexity/candidates.ts";

const ModelNames = Type.Array(Type.String({ minLength: 1 }));
const FallbackOptions = Type.Object(
  {
    chains: Type.Optional(Type.Record(Type.String(), ModelNames, { description: "model name → the models to try after it" })),
    default: Type.Optional(ModelNames),
  },
  { additionalProperties: false },
);
type FallbackOptions = Static<typeof FallbackOptions>;

const NO_CHAINS: Readonly<Record<string, string[]>> = Object.freeze({});

function plan(input: RouteInput, ctx: StrategyContext<FallbackOptions>): RoutePlan {
  const { chains = NO_CHAINS, default: backups = NONE } = ctx.options;
  const requested = input.requestedModel;
  const chain = Object.hasOwn(chains, requested) ? chains[requested]! : backups;
  if (chain.length === 0) return single(requested, ctx);
  const available: string[] = [];
  const unavailable: string[] = [];
  const seen = new Set<string>();
  for (const name of [requested, ...chain]) {
    const model = ctx.catalog.resolve(name);
    // Two spellings of one catalog model count once; unknown names are kept for the router to report.
    const key = model ? modelRef(model) : name;
    if (seen.has(key)) continue;
    seen.add(key);
    (model && !ctx.isAvailable(model) ? unavailable : available).push(name);
  }
  return { candidates: [...available, ...unavailable], mode: "fallback", reasons: reasonsFor(requested, chain.length, unavailable) };
}

/** No chain: the requested model alone (most requests), planned without the ordering work. */
function single(requested: string, ctx: StrategyContext): RoutePlan {
  const model = ctx.catalog.resolve(requested);
  return { candidates: [requested], mode: "fallback", reasons: reasonsFor(requested, 0, model && !ctx.isAvailable(model) ? [requested] : NONE) };
}

const NONE: readonly string[] = [];

function reasonsFor(requested: string, backups: number, unavailable: readonly string[]): string[] {
  const reasons = [backups ? `fallback chain of ${requested}: ${backups} backups` : `no fallback chain for ${requested}`];
  if (unavailable.length) reasons.push(`unavailable, tried last: ${unavailable.join(", ")}`);
  return reasons;
}

export default definePlugin({
  kind: "strategy",
  name: "fallback",
  description: "Tries the requested model, then its configured fallback chain",
  servesConcreteModels: true,
  options: FallbackOptions,
  plan,
});
