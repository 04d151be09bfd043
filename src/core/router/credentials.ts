// Which key and base URL a provider is called with. Keys come from the
// provider's env variable (first set wins) or the config file; a client's own
// credential is used only for the vendor it was meant for (see pipeline).
import type { Config } from "../../config/schema.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import { HttpError } from "../../surfaces/http.ts";

type Env = Record<string, string | undefined>;

export function providerKey(p: ProviderPlugin, config: Config, env: Env): string | undefined {
  for (const name of p.apiKeyEnv ?? []) if (env[name]) return env[name];
  return config.providers[p.name]?.apiKey || undefined;
}

export const needsKey = (p: ProviderPlugin): boolean => (p.apiKeyEnv?.length ?? 0) > 0;

export function missingKeyError(p: ProviderPlugin): HttpError {
  const name = p.apiKeyEnv?.[0] ?? `${p.name.toUpperCase()}_API_KEY`;
  return new HttpError(500, "missing_api_key", `Missing ${name} environment variable`);
}

const HTTP_SCHEME = /^https?:\/\//i;
const TRAILING_SLASHES = /\/+$/;

export function providerBaseUrl(p: ProviderPlugin, config: Config, env: Env): string {
  let url: string | undefined;
  for (const name of p.baseUrlEnv ?? []) if (env[name]) { url = env[name]; break; }
  url ??= config.providers[p.name]?.baseUrl || p.baseUrl;
  // OLLAMA_HOST is often given as host:port without a scheme.
  if (!HTTP_SCHEME.test(url)) url = `http://${url}`;
  return url.endsWith("/") ? url.replace(TRAILING_SLASHES, "") : url;
}
