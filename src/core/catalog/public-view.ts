// The catalog as public reference data (spec §2.9; `relay cloud`'s /models.json, /providers.json and
// /api/v1/catalog): every model the catalog knows, of every provider whether or not this server holds
// a key for it, with the prices and capabilities the data packages give, and the routing strategies'
// virtual models. Nothing is made up: what the data lacks is null (a model the price data alone lists
// has no capability data; Relay's routing assumes the vendor can do anything, this view says "unknown").
// Objects are sorted by id, so a listing (and the ETag of its text) only changes with the catalog.
import type { ModelCapabilities, ModelInfo, ProviderPlugin, Tier } from "../../plugin/api.ts";
import { PERMISSIVE } from "./model.ts";

export const CAPABILITIES = ["json", "reasoning", "streaming", "tools", "vision"] as const satisfies readonly (keyof ModelCapabilities)[];
export type Capability = (typeof CAPABILITIES)[number];

/** The provider name of the virtual models: Relay's own routing, not a plugin. */
export const VIRTUAL_PROVIDER = "relay";

/** USD per million tokens, at the base tier (a price above some prompt size is not shown). */
export interface PublicPricing {
  input: number;
  output: number;
  cache_read: number | null;
  cache_write: number | null;
}

export interface PublicModel {
  /** `<provider>:<model>` (the SDK's form, §2.9), or the virtual model's own name (`svc:auto`). */
  id: string;
  object: "model" | "virtual_model";
  provider: string;
  /** The vendor's model id, as sent to the vendor. */
  model: string;
  aliases: string[];
  context_window: number | null;
  max_output_tokens: number | null;
  pricing: PublicPricing | null;
  /** The capabilities the model has, sorted; null when the data says nothing about them. */
  capabilities: Capability[] | null;
  /** Whether the routing strategies (svc:auto …) choose from it. */
  routable: boolean;
  tier: Tier | null;
  /** A virtual model's strategy and description; null for the others. */
  strategy: string | null;
  description: string | null;
}

export interface PublicProvider {
  id: string;
  name: string | null;
  /** Wire formats the provider speaks: its own first, then the ones it also accepts. */
  formats: string[];
  model_count: number;
  routable_model_count: number;
  priced_model_count: number;
}

export interface VirtualModel {
  model: string;
  strategy: string;
  description?: string;
}

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function pricingOf(m: ModelInfo): PublicPricing | null {
  const p = m.price;
  return p ? { input: p.input, output: p.output, cache_read: p.cacheRead ?? null, cache_write: p.cacheWrite ?? null } : null;
}

/** PERMISSIVE is the catalog's stand-in for "no data" (model.ts): it is not a fact about the model. */
const capabilitiesOf = (m: ModelInfo): Capability[] | null =>
  m.capabilities === PERMISSIVE ? null : CAPABILITIES.filter((c) => m.capabilities[c]);

function publicModel(m: ModelInfo): PublicModel {
  return {
    id: `${m.provider}:${m.id}`,
    object: "model",
    provider: m.provider,
    model: m.id,
    aliases: [...m.aliases],
    context_window: m.contextWindow ?? null,
    max_output_tokens: m.maxOutput ?? null,
    pricing: pricingOf(m),
    capabilities: capabilitiesOf(m),
    routable: m.routable,
    tier: m.tier ?? null,
    strategy: null,
    description: null,
  };
}

function publicVirtual(v: VirtualModel): PublicModel {
  return {
    id: v.model,
    object: "virtual_model",
    provider: VIRTUAL_PROVIDER,
    model: v.model,
    aliases: [],
    context_window: null,
    max_output_tokens: null,
    pricing: null,
    capabilities: null,
    routable: false,
    tier: null,
    strategy: v.strategy,
    description: v.description ?? null,
  };
}

/** Every catalog model and virtual model, sorted by id. */
export function publicModels(models: readonly ModelInfo[], virtual: readonly VirtualModel[]): PublicModel[] {
  return [...models.map(publicModel), ...virtual.map(publicVirtual)].sort(byId);
}

/** Each loaded provider plugin with its catalog counts, sorted by id; never its key or configured address. */
export function publicProviders(providers: Iterable<ProviderPlugin>, models: readonly PublicModel[]): PublicProvider[] {
  return [...providers]
    .map((p) => {
      const own = models.filter((m) => m.provider === p.name);
      return {
        id: p.name,
        name: p.displayName ?? null,
        formats: [p.format, ...(p.alsoSpeaks ?? []).filter((f) => f !== p.format)],
        model_count: own.length,
        routable_model_count: own.filter((m) => m.routable).length,
        priced_model_count: own.filter((m) => m.pricing).length,
      };
    })
    .sort(byId);
}

export interface CatalogFilter {
  /** Models of any of these providers. */
  providers?: readonly string[];
  /** Models having every one of these capabilities (unknown capabilities never match). */
  capabilities?: readonly Capability[];
  /** Bounds, inclusive, on one price in USD per million tokens (unpriced models never match). */
  price?: { field: "input" | "output"; min?: number; max?: number };
  /** Models whose context window is at least this many tokens (an unknown window never matches). */
  minContext?: number;
  /** Models whose id sorts after this one (the last id of the previous page). */
  startingAfter?: string;
  limit: number;
}

export interface CatalogPage {
  data: PublicModel[];
  has_more: boolean;
  /** Matches of the filters, on every page. */
  total: number;
}

function matches(m: PublicModel, f: CatalogFilter): boolean {
  if (f.providers && !f.providers.includes(m.provider)) return false;
  if (f.capabilities?.length && !(m.capabilities && f.capabilities.every((c) => m.capabilities!.includes(c)))) return false;
  if (f.price) {
    const value = m.pricing?.[f.price.field];
    if (value === undefined) return false;
    if ((f.price.min !== undefined && value < f.price.min) || (f.price.max !== undefined && value > f.price.max)) return false;
  }
  return f.minContext === undefined || (m.context_window !== null && m.context_window >= f.minContext);
}

/**
 * One page of the models matching `f`, from `models` sorted by id. The cursor is compared, not looked
 * up, so a page still follows on when its last model left the catalog in between.
 */
export function queryCatalog(models: readonly PublicModel[], f: CatalogFilter): CatalogPage {
  const matched = models.filter((m) => matches(m, f));
  const after = f.startingAfter;
  const rest = after === undefined ? matched : matched.filter((m) => m.id > after);
  return { data: rest.slice(0, f.limit), has_more: rest.length > f.limit, total: matched.length };
}
