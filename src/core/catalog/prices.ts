// Adapter over @pydantic/genai-prices. Only its bundled data is used: its
// remote refresh (`updatePrices`) is deliberately never called, so pricing
// works offline and is reproducible.

import type { ModelPrice as ListedPrices, TieredPrices } from "@pydantic/genai-prices";
import type { ModelPrice } from "../../plugin/api.ts";
import type { Usage } from "../ir.ts";

// The price data is a large module (tens of ms to evaluate): load it on first use, not at start-up.
type GenaiPrices = typeof import("@pydantic/genai-prices");
let genai: GenaiPrices | undefined;
const calcPrice: GenaiPrices["calcPrice"] = (...args) => (genai ??= require("@pydantic/genai-prices") as GenaiPrices).calcPrice(...args);

/** Our provider names where genai-prices spells them differently. */
const GENAI_PROVIDER_IDS: Record<string, string> = { xai: "x-ai" };

export interface PriceListing {
  /** Base-tier USD per million tokens, at the current time. */
  price?: ModelPrice;
  contextWindow?: number;
}

export interface ListedCost {
  usd: number;
  /** Every per-million price the model has been listed at (prices may change by date or time of day). */
  listedPrices: ModelPrice[];
}

/** What genai-prices lists for a model, or undefined when it does not know it. */
export function priceListing(provider: string, id: string): PriceListing | undefined {
  const result = calculate(provider, id, {});
  if (!result) return undefined;
  return { price: perMillion(result.model_price), contextWindow: result.model.context_window };
}

/**
 * USD for a usage. genai-prices wants `input_tokens` to be the TOTAL prompt
 * (cache reads and writes are partitions of it), while our Usage.inputTokens
 * excludes cached tokens — so the total is rebuilt here.
 */
export function listedCost(provider: string, id: string, usage: Usage): ListedCost | undefined {
  const inputTokens = count(usage.inputTokens);
  const cacheRead = count(usage.cacheReadTokens);
  const cacheWrite = count(usage.cacheWriteTokens);
  const result = calculate(provider, id, {
    input_tokens: inputTokens + cacheRead + cacheWrite,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    output_tokens: count(usage.outputTokens),
  });
  if (!result) return undefined;
  const variants = Array.isArray(result.model.prices) ? result.model.prices.map((p) => p.prices) : [result.model.prices];
  return {
    usd: result.total_price,
    listedPrices: variants.map(perMillion).filter((p): p is ModelPrice => p !== undefined),
  };
}

function calculate(provider: string, id: string, usage: Record<string, number>) {
  const providerId = GENAI_PROVIDER_IDS[provider] ?? provider;
  return calcPrice(usage, id, { providerId });
}

function perMillion(prices: ListedPrices): ModelPrice | undefined {
  const input = base(prices.input_mtok);
  const output = base(prices.output_mtok);
  if (input === undefined && output === undefined) return undefined;
  const price: ModelPrice = { input: input ?? 0, output: output ?? 0 };
  const cacheRead = base(prices.cache_read_mtok);
  const cacheWrite = base(prices.cache_write_mtok);
  if (cacheRead !== undefined) price.cacheRead = cacheRead;
  if (cacheWrite !== undefined) price.cacheWrite = cacheWrite;
  return price;
}

/** Tiered prices (e.g. above 200k prompt tokens) are shown at their base tier. */
function base(value: number | TieredPrices | undefined): number | undefined {
  return typeof value === "object" ? value.base : value;
}

/** genai-prices throws on negative or non-finite counts; a vendor's odd usage must not break billing. */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}
