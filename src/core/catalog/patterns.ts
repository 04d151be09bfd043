// A provider's model-name patterns (ProviderPlugin.modelPatterns), compiled once per plugin: the
// catalog tries them on bare names it does not list, and caches each answer by name.
import type { ProviderPlugin } from "../../plugin/api.ts";

const compiled = new WeakMap<ProviderPlugin, readonly RegExp[]>();
const GLOB_SPECIAL = /[.+?^${}()|[\]\\]/g;
const STATEFUL_OR_CASE_FLAGS = /[gyi]/g;

/** Case-insensitive, stateless regular expressions for the provider's patterns; throws a TypeError naming a bad one. */
export function compileModelPatterns(p: ProviderPlugin): readonly RegExp[] {
  let patterns = compiled.get(p);
  if (patterns) return patterns;
  if (p.modelPatterns !== undefined && !Array.isArray(p.modelPatterns)) throw new TypeError(`provider "${p.name}": modelPatterns must be a list`);
  patterns = Object.freeze((p.modelPatterns ?? []).map((x) => compileOne(p.name, x)));
  compiled.set(p, patterns);
  return patterns;
}

function compileOne(provider: string, pattern: unknown): RegExp {
  // A copy without `g`/`y`: those keep state between tests and would skip every other match.
  if (pattern instanceof RegExp) return new RegExp(pattern.source, `${pattern.flags.replace(STATEFUL_OR_CASE_FLAGS, "")}i`);
  if (typeof pattern === "string" && pattern.trim() !== "")
    return new RegExp(`^${pattern.trim().replace(GLOB_SPECIAL, "\\$&").replaceAll("*", ".*")}$`, "i");
  throw new TypeError(`provider "${provider}": a model pattern must be a RegExp or a non-empty glob string, got ${JSON.stringify(pattern)}`);
}

/** Name → provider for names the catalog does not list; the first provider whose pattern matches wins. */
export interface PatternRoute {
  provider: string;
  patterns: readonly RegExp[];
}

export function providerByPattern(routes: readonly PatternRoute[], name: string): string | undefined {
  for (const r of routes) for (const re of r.patterns) if (re.test(name)) return r.provider;
  return undefined;
}
