// The model catalog: package-derived defaults, models contributed by provider
// plugins, and config overrides on top — overrides always win.

import type { CatalogView, ModelCapabilities, ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import { buildModel, defaultModels } from "./model.ts";
import { PROVIDERS } from "./overlay.ts";
import { compileModelPatterns, type PatternRoute } from "./patterns.ts";
import { priceListing } from "./prices.ts";
import { NameIndex, qualifiedKey } from "./resolve.ts";

/** Config-supplied change to a known model, or a model of its own (an Ollama model, a fine-tune). */
/** A config override or addition; capabilities may name single flags. */
export type ModelOverride = Omit<Partial<ModelInfo>, "capabilities"> & { id: string; provider: string; capabilities?: Partial<ModelCapabilities> };

export class Catalog implements CatalogView {
  private readonly defaults = defaultModels();
  private readonly overrides: ModelOverride[];
  /** Registered providers' names (passthrough prefixes) and model-name patterns. */
  private readonly providerNames: string[];
  private readonly patternRoutes: PatternRoute[];
  private contributed: ModelInfo[] = [];
  // Derived by rebuild():
  private models!: ModelInfo[];
  /** Models whose price came from an override, so their snapshots keep it. */
  private overridePriced!: Set<string>;
  private index!: NameIndex;
  private routableList!: readonly ModelInfo[];
  /** resolve() answers by name; emptied when the catalog changes, bounded against a flood of made-up names. */
  private readonly resolved = new Map<string, ModelInfo | undefined>();
  /** A dated snapshot resolve() made → the entry it belongs to (see canonical). */
  private readonly snapshotOf = new WeakMap<ModelInfo, ModelInfo>();

  /** `providers`: the registered provider plugins; each name is a passthrough prefix (`local-openai:qwen`), each pattern routes bare names. */
  constructor(opts: { overrides?: ModelOverride[]; providers?: Iterable<ProviderPlugin> } = {}) {
    this.overrides = opts.overrides ?? [];
    const providers = [...(opts.providers ?? [])];
    this.providerNames = providers.map((p) => p.name);
    this.patternRoutes = providers.map((p) => ({ provider: p.name, patterns: compileModelPatterns(p) })).filter((r) => r.patterns.length > 0);
    this.rebuild();
  }

  /**
   * A dated snapshot (`claude-sonnet-4-5-20250929`) resolves to its base entry
   * but keeps the dated id, which is what gets sent to the vendor; an unknown
   * model of a known provider (`ollama:llama3.2`) is synthesized for passthrough.
   */
  resolve(name: string): ModelInfo | undefined {
    // Every request resolves its model and each candidate; the same few names come back all day.
    if (this.resolved.has(name)) return this.resolved.get(name);
    const model = this.lookup(name);
    if (this.resolved.size >= RESOLVED_CACHE_MAX) this.resolved.clear();
    this.resolved.set(name, model);
    return model;
  }

  /**
   * The catalog entry a resolved model stands for: a dated snapshot's base entry, else the model
   * itself. Limits key on it, so `gpt-4o-mini-2024-07-18` and `gpt-4o-mini` count as one model.
   */
  canonical(model: ModelInfo): ModelInfo {
    return this.snapshotOf.get(model) ?? model;
  }

  private lookup(name: string): ModelInfo | undefined {
    const found = this.index.lookup(name);
    if (!found) return undefined;
    if (found.kind === "passthrough") return buildModel(found.provider, found.id);
    if (found.sentId === undefined) return found.model;
    const { model, sentId } = found;
    const price = this.overridePriced.has(qualifiedKey(model.provider, model.id))
      ? model.price
      : (priceListing(model.provider, sentId)?.price ?? model.price);
    const snapshot = { ...model, id: sentId, ...(price && { price }) };
    this.snapshotOf.set(snapshot, model);
    return snapshot;
  }

  list(): ModelInfo[] {
    return [...this.models];
  }

  routableModels(): readonly ModelInfo[] {
    return this.routableList;
  }

  /** Nearest known names, for a "model not found" answer. */
  suggest(name: string, n = 3): string[] {
    return this.index.suggest(name, n);
  }

  /** Models a provider plugin serves. They fill gaps: a model the catalog already knows keeps its entry. */
  addProviderModels(models: ModelInfo[]): void {
    this.contributed = [...this.contributed, ...models];
    this.rebuild();
  }

  private rebuild(): void {
    const byKey = new Map<string, ModelInfo>();
    for (const m of [...this.defaults, ...this.contributed]) {
      const key = qualifiedKey(m.provider, m.id);
      if (!byKey.has(key)) byKey.set(key, m);
    }
    this.overridePriced = new Set();
    for (const o of this.overrides) {
      const key = qualifiedKey(o.provider, o.id);
      byKey.set(key, applyOverride(byKey.get(key) ?? buildModel(o.provider.toLowerCase(), o.id), o));
      if (o.price) this.overridePriced.add(key);
    }
    this.models = withAliasesClaimed([...byKey.values()], this.overrides);
    // A new array on every change: plugins key what they derive from it by its identity.
    this.routableList = Object.freeze(this.models.filter((m) => m.routable));
    const providers = new Set<string>([...PROVIDERS, ...this.providerNames, ...this.models.map((m) => m.provider)]);
    this.index = new NameIndex(this.models, providers, this.patternRoutes);
    this.resolved.clear();
  }
}

const RESOLVED_CACHE_MAX = 4_096;

function applyOverride(model: ModelInfo, o: ModelOverride): ModelInfo {
  return {
    ...model,
    ...o,
    provider: model.provider,
    capabilities: { ...model.capabilities, ...o.capabilities },
  };
}

/** An alias an override names moves to that model (e.g. `sonnet` pointed at a newer Sonnet). */
function withAliasesClaimed(models: ModelInfo[], overrides: ModelOverride[]): ModelInfo[] {
  const owner = new Map<string, string>();
  for (const o of overrides) for (const alias of o.aliases ?? []) owner.set(alias.toLowerCase(), qualifiedKey(o.provider, o.id));
  if (owner.size === 0) return models;
  return models.map((m) => {
    const key = qualifiedKey(m.provider, m.id);
    const aliases = m.aliases.filter((a) => (owner.get(a.toLowerCase()) ?? key) === key);
    return aliases.length === m.aliases.length ? m : { ...m, aliases };
  });
}
