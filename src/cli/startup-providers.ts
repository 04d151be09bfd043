// What a start says about each provider: where its key comes from and which base
// URL it will call, so that a new user sees at once what Relay found. Names the
// key's source (a variable, the config file), never the key.
import type { Config } from "../config/schema.ts";
import { stripUrlCredentials } from "../config/redact.ts";
import { baseUrlSource, keyEnvName, needsKey } from "../core/router/credentials.ts";
import type { ProviderPlugin } from "../plugin/api.ts";

type Env = Record<string, string | undefined>;

export interface ProviderFound {
  provider: string;
  /** Where the key comes from: its env variable, `providers.<name>.apiKey`, `none` (noting when clients may send their own), or `not needed`. */
  keyFrom: string;
  /** The base URL Relay calls (normal form, no userinfo). */
  baseUrl: string;
  /** Where it came from: an env variable, `providers.<name>.baseUrl`, or `default`. */
  baseUrlFrom: string;
  enabled: boolean;
}

export function providersFound(providers: Iterable<ProviderPlugin>, config: Config, env: Env): ProviderFound[] {
  const found: ProviderFound[] = [];
  for (const p of providers) {
    const source = baseUrlSource(p, config, env);
    found.push({
      provider: p.name,
      keyFrom: keySource(p, config, env),
      baseUrl: stripUrlCredentials(source.url),
      baseUrlFrom: source.from,
      enabled: config.providers[p.name]?.enabled !== false,
    });
  }
  return found;
}

function keySource(p: ProviderPlugin, config: Config, env: Env): string {
  if (!needsKey(p)) return "not needed";
  const found = keyEnvName(p, env) ?? (config.providers[p.name]?.apiKey ? `providers.${p.name}.apiKey` : undefined);
  return found ?? (p.clientCredential ? "none (clients may send their own)" : "none");
}

/** One aligned line per provider: `relay: anthropic  key ANTHROPIC_API_KEY  base https://api.anthropic.com (default)`. */
export function providerLines(found: ProviderFound[]): string {
  const nameWidth = Math.max(0, ...found.map((f) => f.provider.length));
  const keyWidth = Math.max(0, ...found.map((f) => f.keyFrom.length));
  return found
    .map((f) => {
      const off = f.enabled ? "" : "  (disabled in the config)";
      return `relay: ${f.provider.padEnd(nameWidth)}  key ${f.keyFrom.padEnd(keyWidth)}  base ${f.baseUrl} (${f.baseUrlFrom})${off}\n`;
    })
    .join("");
}
