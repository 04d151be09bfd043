// Builds ModelInfo entries from the two data packages plus the overlay's hints.

import type { ModelCapabilities, ModelInfo, Tier } from "../../plugin/api.ts";
import { modelMetadata, metadataIds } from "./metadata.ts";
import { CATALOGUED_PROVIDERS, OVERLAY } from "./overlay.ts";
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
 * list on models.dev (non-routable). A snapshot of an overlay model is left
 * out — it resolves through its base id — and the first snapshot of a family
 * gets the undated id as an alias, as vendors accept both spellings.
 */
export function defaultModels(): ModelInfo[] {
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
  return models;
}
