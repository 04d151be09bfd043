// Which key and base URL a provider is called with. Keys come from the
// provider's env variable (first set wins) or the config file; a client's own
// credential is used only for the vendor it was meant for (see client-credential.ts). Base
// URLs come from RELAY_<PROVIDER>_BASE_URL, the vendor's own variable, the
// config file, then the plugin's default.
import type { Config } from "../../config/schema.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";

type Env = Record<string, string | undefined>;

export function providerKey(p: ProviderPlugin, config: Config, env: Env): string | undefined {
  for (const name of p.apiKeyEnv ?? []) if (env[name]) return env[name];
  return config.providers[p.name]?.apiKey || undefined;
}

export const needsKey = (p: ProviderPlugin): boolean => (p.apiKeyEnv?.length ?? 0) > 0;

export function missingKeyError(p: ProviderPlugin): CoreError {
  const name = p.apiKeyEnv?.[0] ?? `${p.name.toUpperCase()}_API_KEY`;
  return new CoreError(500, "missing_api_key", `Missing ${name} environment variable`);
}

const HTTP_SCHEME = /^https?:\/\//i;
const TRAILING_SLASHES = /\/+$/;
const NOT_ENV_CHAR = /[^A-Z0-9]/g;

/** Where a provider's base URL came from: an env variable's name, the config key, or the plugin's default. */
export interface BaseUrlSource {
  url: string;
  from: string;
}

const relayNames = new WeakMap<ProviderPlugin, string[]>();
/**
 * The variables naming a provider's base URL, first set wins: Relay's own `RELAY_<PROVIDER>_BASE_URL`,
 * then the vendor's (`ANTHROPIC_BASE_URL`). The vendor's name is what clients such as Claude Code
 * export to point *at* Relay, so Relay's own name comes first and cannot collide with it.
 */
export function baseUrlEnvNames(p: ProviderPlugin): string[] {
  let names = relayNames.get(p);
  if (names === undefined) relayNames.set(p, (names = [relayBaseUrlEnv(p), ...(p.baseUrlEnv ?? [])]));
  return names;
}

export const relayBaseUrlEnv = (p: ProviderPlugin): string => `RELAY_${p.name.toUpperCase().replace(NOT_ENV_CHAR, "_")}_BASE_URL`;

export function baseUrlSource(p: ProviderPlugin, config: Config, env: Env): BaseUrlSource {
  for (const name of baseUrlEnvNames(p)) if (env[name]) return { url: normalizeBaseUrl(env[name]), from: name };
  const configured = config.providers[p.name]?.baseUrl;
  if (configured) return { url: normalizeBaseUrl(configured), from: `providers.${p.name}.baseUrl` };
  return { url: normalizeBaseUrl(p.baseUrl), from: "default" };
}

export const providerBaseUrl = (p: ProviderPlugin, config: Config, env: Env): string => baseUrlSource(p, config, env).url;

function normalizeBaseUrl(url: string): string {
  // OLLAMA_HOST is often given as host:port without a scheme.
  if (!HTTP_SCHEME.test(url)) url = `http://${url}`;
  return url.endsWith("/") ? url.replace(TRAILING_SLASHES, "") : url;
}
