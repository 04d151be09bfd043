// The checks behind `relay doctor`. Each answers pass, fail or skip (not
// applicable) with one line of detail; none throws.
import { createServer } from "node:net";
import { ConfigError, type LoadedConfig, defaults } from "../../config/load.ts";
import { pluginDirs } from "../../config/paths.ts";
import type { Config } from "../../config/schema.ts";
import { Catalog } from "../../core/catalog/catalog.ts";
import { baseUrlEnvNames, needsKey, providerBaseUrl, providerKey } from "../../core/router/credentials.ts";
import { selfPointing } from "../../core/router/loop-guard.ts";
import { loadPlugins } from "../../plugin/host.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import { serverUrl } from "./client.ts";
import type { Env } from "./context.ts";
import { probeVendor } from "./vendor-probe.ts";

export type Outcome = "pass" | "fail" | "skip";

export interface CheckResult {
  check: string;
  outcome: Outcome;
  detail: string;
}

const REACH_TIMEOUT_MS = 5_000;
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The config as `relay start` would load it; an invalid file fails and the other checks use the defaults. */
export function checkConfig(load: () => LoadedConfig): { result: CheckResult; config: Config } {
  try {
    const loaded = load();
    const detail = loaded.fileExists ? `${loaded.file} is valid` : `${loaded.file} not found; defaults in use`;
    return { result: { check: "config", outcome: "pass", detail }, config: loaded.config };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e; // a bad flag is a usage error, not a config problem
    return { result: { check: "config", outcome: "fail", detail: errorText(e) }, config: defaults() };
  }
}

/** Providers the complexity tiers point at: a missing key there breaks routing. */
function providersInRouting(config: Config): Map<string, string> {
  const catalog = new Catalog({ overrides: config.models });
  const used = new Map<string, string>();
  const strategies = config.routing.strategies as Record<string, { tiers?: Record<string, unknown>; chain?: unknown[] }>;
  for (const [tier, name] of Object.entries(strategies.complexity?.tiers ?? {})) {
    const model = typeof name === "string" ? catalog.resolve(name) : undefined;
    if (model && !used.has(model.provider)) used.set(model.provider, `routing tier ${tier} uses ${name}`);
  }
  return used;
}

/** Credential checks: a provider without a key is skipped unless routing depends on it. */
export function checkKeys(providers: ProviderPlugin[], config: Config, env: Env): CheckResult[] {
  const used = providersInRouting(config);
  return providers.filter(needsKey).map((p) => {
    const check = `key ${p.name}`;
    const envName = p.apiKeyEnv!.find((n) => env[n]);
    if (envName) return { check, outcome: "pass", detail: `${envName} is set` };
    if (providerKey(p, config, env)) return { check, outcome: "pass", detail: "set in the config file" };
    const reason = used.get(p.name);
    return reason
      ? { check, outcome: "fail", detail: `${p.apiKeyEnv![0]} is not set, but ${reason}` }
      : { check, outcome: "skip", detail: `${p.apiKeyEnv![0]} not set` };
  });
}

/** Providers worth calling: keyed ones, and keyless ones (Ollama) whose address was configured. */
export function configuredProviders(providers: ProviderPlugin[], config: Config, env: Env): ProviderPlugin[] {
  return providers.filter((p) => {
    if (config.providers[p.name]?.enabled === false) return false;
    if (needsKey(p)) return providerKey(p, config, env) !== undefined;
    return baseUrlEnvNames(p).some((n) => env[n]) || Boolean(config.providers[p.name]?.baseUrl);
  });
}

/** The base URL speaks the vendor's API: its model list answers (see vendor-probe.ts); any other HTTP answer is not enough. */
export async function checkReachable(p: ProviderPlugin, config: Config, env: Env): Promise<CheckResult> {
  const verdict = await probeVendor(p, providerBaseUrl(p, config, env), providerKey(p, config, env), REACH_TIMEOUT_MS);
  return { check: `reach ${p.name}`, ...verdict };
}

/** A vendor base URL that is Relay's own listen address: every call to that provider would come back to Relay (508). */
export function checkLoops(providers: ProviderPlugin[], config: Config, env: Env): CheckResult[] {
  const { host, port } = config.server;
  return selfPointing(providers, config, env, { host, port }).map(({ provider, message }) => ({ check: `loop ${provider}`, outcome: "fail", detail: message }));
}

/** The proxy port is free, or already served by a healthy Relay. */
export async function checkPort(config: Config): Promise<CheckResult> {
  const { host, port } = config.server;
  const check = "port";
  const bindError = await tryBind(host, port);
  if (!bindError) return { check, outcome: "pass", detail: `${host}:${port} is free` };
  if (bindError !== "EADDRINUSE") return { check, outcome: "fail", detail: `cannot listen on ${host}:${port}: ${bindError}` };
  try {
    const res = await fetch(`${serverUrl(config)}/health`, { signal: AbortSignal.timeout(REACH_TIMEOUT_MS) });
    const body = (await res.json()) as { status?: string; version?: string };
    if (res.ok && body.status === "ok") return { check, outcome: "pass", detail: `${host}:${port} is served by a healthy Relay ${body.version ?? ""}`.trimEnd() };
  } catch {
    // not Relay: reported below
  }
  return { check, outcome: "fail", detail: `${host}:${port} is in use by another program` };
}

/** undefined when the address could be bound, else the error code. */
function tryBind(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

export async function checkPlugins(config: Config, env: Env): Promise<CheckResult[]> {
  const dirs = pluginDirs(config, env);
  const { loaded, failed } = await loadPlugins(dirs);
  const summary: CheckResult = { check: "plugins", outcome: failed.length ? "fail" : "pass", detail: `${loaded.length} loaded, ${failed.length} failed from ${dirs.join(", ")}` };
  return [summary, ...failed.map((f): CheckResult => ({ check: "plugin", outcome: "fail", detail: `${f.file}: ${f.error}` }))];
}
