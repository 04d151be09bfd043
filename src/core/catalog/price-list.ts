// What the price data (@pydantic/genai-prices) lists per vendor: the model ids the catalog takes in,
// so a model newer than the models.dev snapshot still resolves with its price, and the vendor's most
// expensive listed price, at which budgets count a model nobody prices (unpriced.ts).

import type { ModelInfo as ListedModel, ModelPrice as ListedPrices } from "@pydantic/genai-prices";
import type { ModelPrice } from "../../plugin/api.ts";
import { genaiPrices, genaiProviderId, perMillion } from "./prices.ts";

/** An id a client can send: not a match prefix (`gpt-3.5-turbo-`), a fine-tune stem (`ft:gpt-4o`) or a reseller's tag (`:free`). */
const SENDABLE_ID = /^[a-z0-9][a-z0-9._/-]*[a-z0-9]$/i;

/** The vendor's own models in the price data: its list also holds models it resells (Vertex's Claude under google), which the data attributes to their maker. */
function ownModels(provider: string): ListedModel[] {
  const prices = genaiPrices();
  const vendor = prices.findProvider({ providerId: genaiProviderId(provider) });
  if (!vendor) return [];
  return vendor.models.filter((m) => {
    const maker = prices.findProvider({ modelId: m.id });
    return maker === undefined || maker.id === vendor.id;
  });
}

/** Model ids the price data lists for a vendor, each one it can be asked for by name. */
export function pricedModelIds(provider: string): string[] {
  return ownModels(provider)
    .map((m) => m.id)
    .filter((id) => SENDABLE_ID.test(id));
}

const topPrices = new Map<string, ModelPrice | null>();

/**
 * The vendor's most expensive listed price: the highest input and the highest output price per million
 * tokens over its models (possibly of two models), every listed period and base tier counted. Undefined
 * for a vendor the price data does not list (a local Ollama model costs nothing).
 */
export function topListedPrice(provider: string): ModelPrice | undefined {
  let top = topPrices.get(provider);
  if (top === undefined) topPrices.set(provider, (top = highestPrice(ownModels(provider)) ?? null));
  return top ?? undefined;
}

function highestPrice(models: ListedModel[]): ModelPrice | undefined {
  let top: ModelPrice | undefined;
  for (const m of models) {
    for (const p of periods(m.prices)) {
      const price = perMillion(p);
      if (price) top = { input: Math.max(top?.input ?? 0, price.input), output: Math.max(top?.output ?? 0, price.output) };
    }
  }
  return top;
}

function periods(prices: ListedModel["prices"]): ListedPrices[] {
  return Array.isArray(prices) ? prices.map((p) => p.prices) : [prices];
}
