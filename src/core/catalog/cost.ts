// The one cost function. Prices come from genai-prices when it lists the
// model (tiered prices, cache reads and writes); otherwise, or when config
// overrode the price, from the model's per-million figures.

import type { ModelInfo, ModelPrice } from "../../plugin/api.ts";
import type { Usage } from "../ir.ts";
import { listedCost } from "./prices.ts";

/** USD for one call; 0 for a model nobody prices (e.g. a local Ollama model). */
export function costOf(model: ModelInfo, usage: Usage): number {
  const { price } = model;
  const listed = listedCost(model.provider, model.id, usage);
  // A price that matches none of the listed ones was set by config or a plugin, and it wins.
  if (listed && (!price || listed.listedPrices.some((p) => samePrice(p, price)))) return listed.usd;
  return price ? perMillionCost(price, usage) : 0;
}

/** Cached tokens fall back to the input price when the model has no separate cache price. */
function perMillionCost(price: ModelPrice, usage: Usage): number {
  const usd =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input);
  return usd / 1_000_000;
}

function samePrice(a: ModelPrice, b: ModelPrice): boolean {
  return a.input === b.input && a.output === b.output && a.cacheRead === b.cacheRead && a.cacheWrite === b.cacheWrite;
}
