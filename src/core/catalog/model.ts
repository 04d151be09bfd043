// Builds ModelInfo entries from the two data packages plus the overlay's hints.

import type { ModelCapabilities, ModelInfo, Tier } from "../../plugin/api.ts";
import { modelMetadata, metadataIds } from "./metadata.ts";
import { CATALOGUED_PROVIDERS, OVERLAY } from "./overlay.ts";
import { pricedModelIds } from "./price-list.ts";
import { priceListing } from "./prices.ts";
import { qualifiedKey, stripDateSuffix } from "./resolve.ts";

/** For models nobody describes (local or brand-new ones): let the vendor be the judge. */
export const PERMISSIVE: ModelCapabilities = { tools: true, vision: true, json: true, reasoning: true, streaming: true };

export interface ModelHints {
  aliases?: string[];
  tier?: Tier;
  routable?: boolean;
  /** A sibling whose models.dev capability flags apply when the model itself is missing there. */
  like?: string;
}

export function buildModel(provider: string, id: string, hints: ModelHints = {}): ModelInfo {
  const meta = modelMetadata(provider, id);
  const sibling = meta ?? (hints.like ? modelMetadata(provider, hints.like) : undefined);
  const listing = priceListing(provider, id);
  const model: ModelInfo = {
    id,
    provider,
    aliases: hints.aliases ?? [],
    capabilities: sibling?.capabilities ?? PERMISSIVE,
    routable: hints.routable ?? false,
  };
  const contextWindow = meta?.contextWindow ?? listing?.contextWindow;
  const price = listing?.price ?? meta?.price;
  if (contextWindow !== undefined) model.contextWindow = contextWindow;
  if (meta) model.maxOutput = meta.maxOutput;
  if (price) model.price = price;
  if (hints.tier) model.tier = hints.tier;
  return model;
}

/**
 * The overlay's routable models, then every other model the catalogued vendors
 * list on models.dev or in the price data (non-routable: they resolve by name,
 * strategies keep to the overlay's tiers). A snapshot of an overlay model is left
 * out — it resolves through its base id — and the first snapshot of a family
 * gets the undated id as an alias, as vendors accept both spellings.
 */
export function defaultModels(): readonly ModelInfo[] {
  return (defaults ??= Object.freeze(builtDefaults().map(frozen)));
}

/**
 * Built once per process: the data packages are static, pricing ~300 models takes genai-prices a
 * tenth of a second, and a catalog never changes a model (it copies one to override it).
 */
let defaults: readonly ModelInfo[] | undefined;

function frozen(m: ModelInfo): ModelInfo {
  Object.freeze(m.aliases);
  Object.freeze(m.capabilities);
  if (m.price) Object.freeze(m.price);
  return Object.freeze(m);
}

function builtDefaults(): ModelInfo[] {
  const models = OVERLAY.map((o) => buildModel(o.provider, o.id, { aliases: o.aliases, tier: o.tier, routable: true, like: o.like }));
  const overlaid = new Set(models.map((m) => qualifiedKey(m.provider, m.id)));
  const aliased = new Set<string>();
  for (const provider of CATALOGUED_PROVIDERS) {
    for (const id of metadataIds(provider)) {
      const undated = qualifiedKey(provider, stripDateSuffix(id));
      if (overlaid.has(undated)) continue;
      const takesAlias = undated !== qualifiedKey(provider, id) && !aliased.has(undated);
      if (takesAlias) aliased.add(undated);
      models.push(buildModel(provider, id, { aliases: takesAlias ? [stripDateSuffix(id)] : [] }));
    }
  }
  return [...models, ...pricedOnly(models)];
}

/** Models only the price data lists (newer than the models.dev snapshot, such as claude-opus-5-5), each once under any spelling. */
function pricedOnly(known: ModelInfo[]): ModelInfo[] {
  const seen = new Set<string>();
  for (const m of known) for (const name of [m.id, ...m.aliases]) seen.add(qualifiedKey(m.provider, name));
  const added: ModelInfo[] = [];
  for (const provider of CATALOGUED_PROVIDERS) {
    for (const id of pricedModelIds(provider)) {
      if (seen.has(qualifiedKey(provider, id)) || seen.has(qualifiedKey(provider, stripDateSuffix(id)))) continue;
      seen.add(qualifiedKey(provider, id));
      added.push(buildModel(provider, id));
    }
  }
  return added;
}
