// What `relay init` writes: keys found in the environment, tier models that
// those providers serve, and the config file text built from the answers.
import type { Catalog } from "../../core/catalog/catalog.ts";
import { builtinProviders } from "../../providers/index.ts";
import { UsageError } from "../args.ts";
import type { Env } from "./context.ts";

export const TIERS = ["simple", "moderate", "complex"] as const;
export type TierName = (typeof TIERS)[number];
export type Tiers = Record<TierName, string>;

export interface DetectedKey {
  provider: string;
  envName: string;
  key: string;
}

export interface InitAnswers {
  tiers: Tiers;
  dailyUsd: number;
  hourlyUsd: number;
  port: number;
  host?: string;
  /** Copy the detected keys into the file (otherwise they stay in the environment only). */
  saveKeys: boolean;
}

export function detectKeys(env: Env): DetectedKey[] {
  const found: DetectedKey[] = [];
  for (const p of builtinProviders) {
    const envName = p.apiKeyEnv?.find((n) => env[n]);
    if (envName) found.push({ provider: p.name, envName, key: env[envName]! });
  }
  return found;
}

/** For each tier, a routable model of the first detected provider that has one; else the catalog's first (Anthropic's). */
export function suggestTiers(catalog: Catalog, detected: DetectedKey[]): Tiers {
  const routable = catalog.routableModels();
  const pick = (tier: TierName) => {
    for (const { provider } of detected) {
      const model = routable.find((m) => m.provider === provider && m.tier === tier);
      if (model) return model.id;
    }
    return (routable.find((m) => m.tier === tier) ?? routable[0]!).id;
  };
  return { simple: pick("simple"), moderate: pick("moderate"), complex: pick("complex") };
}

/** `name` when the catalog knows it; else a usage error naming the closest known models. */
export function requireModel(catalog: Catalog, name: string, what: string): string {
  if (catalog.resolve(name)) return name;
  const near = catalog.suggest(name);
  throw new UsageError(`${what}: unknown model ${JSON.stringify(name)}${near.length ? ` (did you mean ${near.join(", ")}?)` : ""}; see 'relay models'`);
}

export function configText(a: InitAnswers, detected: DetectedKey[]): string {
  const chain = [...new Set(TIERS.map((t) => a.tiers[t]))];
  const config: Record<string, unknown> = {
    server: { ...(a.host !== undefined && { host: a.host }), port: a.port },
    routing: { strategies: { complexity: { tiers: a.tiers }, cascade: { chain } } },
    limits: { dailyUsd: a.dailyUsd, hourlyUsd: a.hourlyUsd },
  };
  if (a.saveKeys && detected.length) config.providers = Object.fromEntries(detected.map((d) => [d.provider, { apiKey: d.key }]));
  return `${JSON.stringify(config, null, 2)}\n`;
}
