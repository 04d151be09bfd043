// The SDK's global configuration (interface §2.11 GlobalConfig): set with configure(), read with
// getConfig(), cleared with resetConfig(). Environment variables (§5.11) fill in what is not
// configured; they are read on each run, from the platform's process.env when it has one (Node,
// Bun, Deno 2), never cached.
import { dropRouters } from "./router.ts";

/** Interface §2.11's ProviderConfig: a vendor's credentials, or a Relay proxy's address as `baseUrl`. */
export interface ProviderConfig {
  apiKey: string;
  baseUrl?: string;
  /** OpenAI's organization (sent as OpenAI-Organization); other vendors have none and ignore it. */
  organization?: string;
}

export interface TelemetryConfig {
  enabled: boolean;
  /** The Relay cloud's address; RELAY_API_HOST when absent. */
  apiEndpoint?: string;
  /** A Relay API key, sent as x-api-key. */
  apiKey?: string;
}

/** Cloud mode's settings; the cloud's address is RELAY_API_HOST. */
export interface CloudConfig {
  enabled: boolean;
  /** The team's id (`team_…`), for your reference: the cloud takes the team from the token. */
  teamId?: string;
  /** A signed-in user's access token (`rat_…`, sent as Authorization: Bearer) or a standard API key (`rk_live_…`, sent as x-api-key). */
  accessToken?: string;
}

/** Interface §2.11's GlobalConfig; `providers` by vendor name (`openai`, `anthropic`, `google`, `xai`, `ollama`, …). */
export interface GlobalConfig {
  providers?: Record<string, ProviderConfig>;
  telemetry?: TelemetryConfig;
  cloud?: CloudConfig;
}

export type Env = Record<string, string | undefined>;

let current: GlobalConfig = {};

/** Merges `config` into the configuration: providers by vendor, `telemetry` and `cloud` replaced whole. */
export function configure(config: GlobalConfig): void {
  if (config.providers) checkProviders(config.providers, "providers");
  current = {
    ...current,
    ...config,
    ...(config.providers && { providers: { ...current.providers, ...config.providers } }),
  };
}

/** A copy of what configure() set (environment variables not included). */
export function getConfig(): GlobalConfig {
  return structuredClone(current);
}

/** Clears configure()'s settings; the routers made with them are dropped (runs under way finish on theirs). */
export function resetConfig(): void {
  current = {};
  dropRouters();
}

/** The platform's environment: process.env on Node, Bun and Deno 2; empty elsewhere, and on Deno without --allow-env. */
export function platformEnv(): Env {
  try {
    return { ...(globalThis as { process?: { env?: Env } }).process?.env };
  } catch {
    return {};
  }
}

/** The Relay cloud's address: RELAY_API_HOST, else telemetry's apiEndpoint. */
export const apiHost = (env: Env): string | undefined => env.RELAY_API_HOST || current.telemetry?.apiEndpoint;

/** Throws a TypeError naming the first ProviderConfig without an apiKey or with a bad baseUrl. */
export function checkProviders(providers: Record<string, ProviderConfig>, at: string): void {
  for (const [vendor, p] of Object.entries(providers)) {
    if (typeof p?.apiKey !== "string" || p.apiKey === "") throw new TypeError(`${at}.${vendor}.apiKey is required (a non-empty string)`);
    if (p.baseUrl !== undefined && !URL.canParse(p.baseUrl)) throw new TypeError(`${at}.${vendor}.baseUrl is not a URL: ${p.baseUrl}`);
  }
}
