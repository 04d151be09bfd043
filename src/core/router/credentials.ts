// Which key and base URL a provider is called with. Keys come from the
// provider's env variable (first set wins) or the config file; a client's own
// credential is used only for the vendor it was meant for (see client-credential.ts). Base
// URLs come from RELAY_<PROVIDER>_BASE_URL, the vendor's own variable, the
// config file, then the plugin's default; each in the vendor's documented form,
// with or without its version segment (ProviderPlugin.versionPath).
import type { Config } from "../../config/schema.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";
import type { ProviderKeys } from "./call.ts";

type Env = Record<string, string | undefined>;

export function providerKey(p: ProviderPlugin, config: Config, env: Env): string | undefined {
  const name = keyEnvName(p, env);
  return name !== undefined ? env[name] : config.providers[p.name]?.apiKey || undefined;
}

/** The env variable a provider's key is read from, when one is set (it wins over the config file). */
export function keyEnvName(p: ProviderPlugin, env: Env): string | undefined {
  for (const name of p.apiKeyEnv ?? []) if (env[name]) return name;
  return undefined;
}

export const needsKey = (p: ProviderPlugin): boolean => (p.apiKeyEnv?.length ?? 0) > 0;

/**
 * Whether `p` can be called: enabled, and needing no key or having one (Relay's, the client's own
 * when `clientCredentialFor` names it, or the caller's in `own`). Cooldowns are the health board's business, not this.
 */
export function providerReady(p: ProviderPlugin, config: Config, env: Env, clientCredentialFor?: string, own?: ProviderKeys): boolean {
  if (config.providers[p.name]?.enabled === false) return false;
  return !needsKey(p) || clientCredentialFor === p.name || own?.[p.name] !== undefined || providerKey(p, config, env) !== undefined;
}

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
  for (const name of baseUrlEnvNames(p)) if (env[name]) return { url: normalizeBaseUrl(p, env[name]), from: name };
  const configured = config.providers[p.name]?.baseUrl;
  if (configured) return { url: normalizeBaseUrl(p, configured), from: `providers.${p.name}.baseUrl` };
  return { url: normalizeBaseUrl(p, p.baseUrl), from: "default" };
}

export const providerBaseUrl = (p: ProviderPlugin, config: Config, env: Env): string => baseUrlSource(p, config, env).url;

/** Each provider's last configured URL and its normal form: looked up on every vendor call, it rarely changes. */
const normalized = new WeakMap<ProviderPlugin, { raw: string; url: string }>();

function normalizeBaseUrl(p: ProviderPlugin, raw: string): string {
  const last = normalized.get(p);
  if (last?.raw === raw) return last.url;
  const url = withVersionPath(p, trimBaseUrl(raw));
  normalized.set(p, { raw, url });
  return url;
}

function trimBaseUrl(url: string): string {
  // OLLAMA_HOST is often given as host:port without a scheme.
  if (!HTTP_SCHEME.test(url)) url = `http://${url}`;
  return url.endsWith("/") ? url.replace(TRAILING_SLASHES, "") : url;
}

/**
 * A base URL in the form of the plugin's default (see ProviderPlugin.versionPath), so that the
 * vendor's documented forms, with the version segment and without, reach the same address.
 */
function withVersionPath(p: ProviderPlugin, url: string): string {
  const segment = p.versionPath;
  if (segment === undefined || url.includes("?")) return url;
  const path = pathOf(url);
  const has = path.endsWith(segment);
  if (!p.baseUrl.endsWith(segment)) return has ? url.slice(0, -segment.length) : url;
  if (has) return url;
  return path === "" || path === pathOf(p.baseUrl).slice(0, -segment.length) ? url + segment : url;
}

/** The path of an absolute URL with no trailing slash ("" for a bare host), without parsing it. */
function pathOf(url: string): string {
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  return slash === -1 ? "" : url.slice(slash);
}
