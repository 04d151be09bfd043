// Name resolution over a set of models: `<provider>:<model>`,
// `<provider>/<model>`, bare ids, aliases and dated snapshots, all
// case-insensitive. Pure lookup — building ModelInfo is the catalog's job.

import { distance } from "fastest-levenshtein";
import type { ModelInfo } from "../../plugin/api.ts";
import { providerByPattern, type PatternRoute } from "./patterns.ts";

export type Lookup =
  /** `sentId` is set when a dated snapshot matched its base entry: the id to send. */
  | { kind: "known"; model: ModelInfo; sentId?: string }
  /** A known provider (named as a prefix or by its model patterns) but a model the catalog does not list: forward it as is. */
  | { kind: "passthrough"; provider: string; id: string };

// Anthropic dates snapshots `-20250929`, OpenAI `-2024-08-06`.
const DATE_SUFFIX = /-(?:20\d{6}|20\d{2}-\d{2}-\d{2})$/;

export function stripDateSuffix(id: string): string {
  return id.replace(DATE_SUFFIX, "");
}

export const qualifiedKey = (provider: string, id: string): string => `${provider}:${id}`.toLowerCase();

export class NameIndex {
  private readonly qualified = new Map<string, ModelInfo>();
  private readonly ids = new Map<string, ModelInfo>();
  private readonly aliases = new Map<string, ModelInfo>();
  private readonly providers: Set<string>;

  /** Earlier models win a contested bare id or alias; earlier pattern routes a name several match. */
  constructor(
    models: ModelInfo[],
    providers: Iterable<string>,
    private readonly patternRoutes: readonly PatternRoute[] = [],
  ) {
    this.providers = new Set([...providers].map((p) => p.toLowerCase()));
    for (const m of models) {
      setFirst(this.qualified, qualifiedKey(m.provider, m.id), m);
      setFirst(this.ids, m.id.toLowerCase(), m);
      for (const alias of m.aliases) setFirst(this.aliases, alias.toLowerCase(), m);
    }
  }

  lookup(name: string): Lookup | undefined {
    const raw = name.trim();
    const key = raw.toLowerCase();
    const prefixed = this.splitProvider(raw);
    const exact = (prefixed && this.withinProvider(prefixed)) ?? this.ids.get(key) ?? this.aliases.get(key);
    if (exact) return { kind: "known", model: exact };

    const datedId = prefixed?.id ?? raw;
    const undated = stripDateSuffix(datedId.toLowerCase());
    if (undated !== datedId.toLowerCase()) {
      const base = prefixed ? this.qualified.get(qualifiedKey(prefixed.provider, undated)) : this.ids.get(undated);
      if (base) return { kind: "known", model: base, sentId: datedId };
    }
    if (prefixed) return { kind: "passthrough", provider: prefixed.provider, id: prefixed.id };
    const provider = providerByPattern(this.patternRoutes, raw);
    return provider === undefined ? undefined : { kind: "passthrough", provider, id: raw };
  }

  /** Up to n known ids and aliases nearest to a name that did not resolve; none when nothing is close. */
  suggest(name: string, n: number): string[] {
    const key = name.trim().toLowerCase();
    const tolerance = Math.max(2, Math.ceil(key.length / 3));
    const names = new Set([...[...this.ids.values()].map((m) => m.id), ...this.aliases.keys()]);
    return [...names]
      .map((candidate) => ({ candidate, d: distance(key, candidate.toLowerCase()) }))
      .filter(({ d }) => d <= tolerance)
      .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
      .slice(0, n)
      .map(({ candidate }) => candidate);
  }

  /** `anthropic:claude-sonnet-4-5`, and also `anthropic:sonnet`. */
  private withinProvider({ provider, id }: { provider: string; id: string }): ModelInfo | undefined {
    const alias = this.aliases.get(id.toLowerCase());
    return this.qualified.get(qualifiedKey(provider, id)) ?? (alias?.provider === provider ? alias : undefined);
  }

  /** `provider:rest` or `provider/rest` when the prefix names a known provider; the first separator wins. */
  private splitProvider(raw: string): { provider: string; id: string } | undefined {
    const at = raw.search(/[:/]/);
    if (at <= 0) return undefined;
    const provider = raw.slice(0, at).toLowerCase();
    const id = raw.slice(at + 1);
    return this.providers.has(provider) && id ? { provider, id } : undefined;
  }
}

function setFirst<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (!map.has(key)) map.set(key, value);
}
