// Which requests-per-minute limit a model's requests count against, and under
// which key. Limits key on the canonical model: a dated snapshot
// (`gpt-4o-mini-2024-07-18`), an alias (`4o-mini`) and a provider-qualified
// name (`openai:gpt-4o-mini`) all count under the catalog entry they resolve
// to, and a `limits.rpm` entry written under any of those names applies to all
// of them. The router counts with it, the dashboard peeks with it.
import type { Config } from "../../config/schema.ts";
import type { ModelInfo } from "../../plugin/api.ts";
import { modelRateKey } from "./rate-limit.ts";

/** What the limits need from the catalog: name resolution and each model's canonical entry. */
export interface CanonicalCatalog {
  resolve(name: string): ModelInfo | undefined;
  canonical(model: ModelInfo): ModelInfo;
}

type Limits = Pick<Config["limits"], "rpm" | "rpmDefault">;

/** A limit named by an id the catalog cannot resolve applies to that bare id under any provider (as before). */
const bareKey = (id: string): string => `bare:${id.toLowerCase()}`;

/** The stricter of two limits, where 0 means unlimited. */
const stricter = (a: number, b: number): number => (a === 0 ? b : b === 0 ? a : Math.min(a, b));

interface ModelLimit {
  key: string;
  /** Requests per minute; 0 = unlimited. */
  limit: number;
}

export class ModelRateLimits {
  /** Rate key (or bare key) → requests per minute; two names of one model keep the stricter limit. */
  private readonly byKey = new Map<string, number>();
  /** Worked out once per model object rather than per request. */
  private readonly models = new WeakMap<ModelInfo, ModelLimit>();

  constructor(
    readonly source: Limits,
    private readonly catalog: CanonicalCatalog,
  ) {
    for (const [name, limit] of Object.entries(source.rpm)) {
      const model = catalog.resolve(name);
      const key = model ? this.keyOf(model) : bareKey(name);
      const prior = this.byKey.get(key);
      this.byKey.set(key, prior === undefined ? limit : stricter(prior, limit));
    }
  }

  /** The key a model's requests count under (its canonical entry's) and its limit. */
  of(model: ModelInfo): ModelLimit {
    let found = this.models.get(model);
    if (found === undefined) {
      const key = this.keyOf(model);
      const limit = this.byKey.get(key) ?? this.byKey.get(bareKey(this.catalog.canonical(model).id)) ?? this.source.rpmDefault;
      this.models.set(model, (found = { key, limit }));
    }
    return found;
  }

  private keyOf(model: ModelInfo): string {
    const c = this.catalog.canonical(model);
    return modelRateKey(c.provider, c.id);
  }
}

/** One table per catalog and limits object: rebuilt only when either is replaced (a config or plugin reload). */
const tables = new WeakMap<CanonicalCatalog, ModelRateLimits>();

export function modelRateLimits(catalog: CanonicalCatalog, limits: Limits): ModelRateLimits {
  let table = tables.get(catalog);
  if (table === undefined || table.source !== limits) tables.set(catalog, (table = new ModelRateLimits(limits, catalog)));
  return table;
}
