// Fallback routing for concrete model names: the requested model, then its
// configured backups. Unavailable models are moved to the end rather than dropped,
// so the router can still try them (or report why) when nothing else is left.

import { definePlugin } from "../../plugin/api.ts";
import type { RouteInput, RoutePlan, StrategyContext } from "../../plugin/api.ts";
import { modelRef } from "../complexity/candidates.ts";
import { oncePer } from "../once-per.ts";

interface FallbackOptions {
  chains: Record<string, string[]>;
  default: string[];
}

const isNameList = (v: unknown): v is string[] => Array.isArray(v) && v.every((n) => typeof n === "string" && n);

function readOptions(options: Record<string, unknown>): FallbackOptions {
  const { chains = {}, default: fallbackDefault = [] } = options;
  if (typeof chains !== "object" || chains === null || Array.isArray(chains))
    throw new TypeError("fallback: options.chains must map model names to lists of model names");
  for (const [model, chain] of Object.entries(chains))
    if (!isNameList(chain)) throw new TypeError(`fallback: options.chains["${model}"] must be a list of model names`);
  if (!isNameList(fallbackDefault)) throw new TypeError("fallback: options.default must be a list of model names");
  return { chains: chains as Record<string, string[]>, default: fallbackDefault };
}

// Config is replaced whole on change, so each options object is validated once.
const optionsOf = oncePer(readOptions);

function plan(input: RouteInput, ctx: StrategyContext): RoutePlan {
  const opts = optionsOf(ctx.options);
  const requested = input.requestedModel;
  const chain = Object.hasOwn(opts.chains, requested) ? opts.chains[requested] : opts.default;
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
  plan,
});
