// Adapter over @pydantic/genai-prices. Only its bundled data is used: its
// remote refresh (`updatePrices`) is deliberately never called, so pricing
// works offline and is reproducible.

import type { ModelPrice as ListedPrices, Provider, TieredPrices } from "@pydantic/genai-prices";
import type { ModelPrice } from "../../plugin/api.ts";
import type { Usage } from "../ir.ts";

// The price data is a large module (tens of ms to evaluate): load it on first use, not at start-up.
type GenaiPrices = typeof import("@pydantic/genai-prices");
let genai: GenaiPrices | undefined;
export const genaiPrices = (): GenaiPrices => (genai ??= require("@pydantic/genai-prices") as GenaiPrices);

/** Our provider names where genai-prices spells them differently. */
const GENAI_PROVIDER_IDS: Record<string, string> = { xai: "x-ai" };
export const genaiProviderId = (provider: string): string => GENAI_PROVIDER_IDS[provider] ?? provider;

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
  const entry = resolved(provider, id);
  if (!entry) return undefined;
  if (entry.flat) return { usd: flatCost(entry.flat, usage), listedPrices: entry.listedPrices };
  const inputTokens = count(usage.inputTokens);
  const cacheRead = count(usage.cacheReadTokens);
  const cacheWrite = count(usage.cacheWriteTokens);
  const result = genaiPrices().calcPrice(
    { input_tokens: inputTokens + cacheRead + cacheWrite, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite, output_tokens: count(usage.outputTokens) },
    id,
    { provider: entry.provider },
  );
  return result ? { usd: result.total_price, listedPrices: entry.listedPrices } : undefined;
}

interface Resolved {
  /** The vendor narrowed to the one matching model, so later lookups skip the matching scan. */
  provider: Provider;
  listedPrices: ModelPrice[];
  /** Set when the model has one unconditional price with untiered token prices. */
  flat?: ModelPrice;
}

const TOKEN_DIMENSIONS = new Set(["input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"]);

/** The same arithmetic genai-prices does for such a price, without its per-call generality. */
function flatCost(p: ModelPrice, usage: Usage): number {
  return (
    (count(usage.inputTokens) * p.input +
      count(usage.outputTokens) * p.output +
      count(usage.cacheReadTokens) * (p.cacheRead ?? p.input) +
      count(usage.cacheWriteTokens) * (p.cacheWrite ?? p.input)) /
    1_000_000
  );
}

/**
 * One unconditional price whose token prices are plain numbers and with no
 * per-request fee (genai-prices counts one request per call). Other counted
 * dimensions (web searches, …) are never in our usage, so they cost 0 either way.
 */
function isFlat(prices: ListedPrices | Array<{ prices: ListedPrices }>): prices is ListedPrices {
  if (Array.isArray(prices) || prices.requests_kcount !== undefined) return false;
  return Object.entries(prices).every(([k, v]) => !TOKEN_DIMENSIONS.has(k) || typeof v === "number");
}

/**
 * genai-prices finds a model by running match rules over every model of the
 * provider, which dominated a request's CPU time; the match is done once per
 * model id and cached (bounded: ids come from the catalog and clients).
 */
const cache = new Map<string, Map<string, Resolved | null>>();
let cached = 0;
const CACHE_LIMIT = 10_000;

function resolved(provider: string, id: string): Resolved | undefined {
  // Two levels rather than one joined key: no string is built per lookup.
  let entry = cache.get(provider)?.get(id);
  if (entry === undefined) {
    const result = calculate(provider, id, {});
    entry = result
      ? {
          provider: { ...result.provider, models: [result.model] },
          listedPrices: (Array.isArray(result.model.prices) ? result.model.prices.map((p) => p.prices) : [result.model.prices])
            .map(perMillion)
            .filter((p): p is ModelPrice => p !== undefined),
          flat: isFlat(result.model.prices) ? perMillion(result.model.prices) : undefined,
        }
      : null;
    if (cached >= CACHE_LIMIT) {
      cache.clear();
      cached = 0;
    }
    let byId = cache.get(provider);
    if (byId === undefined) cache.set(provider, (byId = new Map()));
    byId.set(id, entry);
    cached++;
  }
  return entry ?? undefined;
}

function calculate(provider: string, id: string, usage: Record<string, number>) {
  return genaiPrices().calcPrice(usage, id, { providerId: genaiProviderId(provider) });
}

export function perMillion(prices: ListedPrices): ModelPrice | undefined {
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
