// The built-in strategies' defaults when the config names no models: per provider, a ladder from
// its cheapest to its strongest routable model, read from the catalog's tier hints (Anthropic's
// Haiku → Sonnet → Opus, OpenAI's gpt-5-nano → gpt-5-mini → gpt-5, …). Which ladder serves a
// request is decided per plan by ctx.isAvailable, so the defaults follow the providers that have
// keys (and are not cooling down) instead of naming one vendor.

import type { CatalogView, ModelInfo, Tier } from "../plugin/api.ts";
import { oncePer } from "./once-per.ts";

export const TIERS: readonly Tier[] = ["simple", "moderate", "complex"];

export interface Ladder {
  provider: string;
  /** The provider's first routable model hinted at each tier, in catalog order. */
  byTier: Partial<Record<Tier, ModelInfo>>;
  /** Those models, cheapest tier first. */
  models: readonly ModelInfo[];
}

/** Providers in the order their first tier-hinted model appears in the catalog (Anthropic first, as before). */
function buildLadders(routable: readonly ModelInfo[]): readonly Ladder[] {
  const rungs = new Map<string, Partial<Record<Tier, ModelInfo>>>();
  for (const m of routable) {
    if (!m.tier) continue;
    let byTier = rungs.get(m.provider);
    if (!byTier) rungs.set(m.provider, (byTier = {}));
    byTier[m.tier] ??= m;
  }
  return [...rungs].map(([provider, byTier]) => ({ provider, byTier, models: TIERS.flatMap((t) => byTier[t] ?? []) }));
}

// Keyed by the catalog's routable array, which a changed catalog replaces.
const laddersOf = oncePer(buildLadders);

export const defaultLadders = (catalog: CatalogView): readonly Ladder[] => laddersOf(catalog.routableModels());
