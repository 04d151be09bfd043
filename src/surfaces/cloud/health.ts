// The hosted health check (spec §2.5): real probes of the database, the cache and the providers,
// each bounded by CHECK_TIMEOUT_MS so a hung dependency cannot hang the route. The values are short
// codes (README, "Health") that carry nothing secret, so the route needs no key (a load balancer
// calls it); the error behind a value goes to the log when the value changes, not into the answer.
import type { Config } from "../../config/schema.ts";
import { baseUrlSource, needsKey, providerReady } from "../../core/router/credentials.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import type { Relay } from "../../relay.ts";
import { pingRedis } from "../../store/redis/ping.ts";
import { VERSION } from "../../version.ts";

/** Longest any one probe may take; they run side by side, so the route answers within about this. */
export const CHECK_TIMEOUT_MS = 2_000;
/** A rate-limiter key nothing is counted under: peeking at it counts nothing against anyone. */
const PROBE_KEY = "health:probe";

export interface HealthResult {
  status: "ok" | "degraded";
  timestamp: string;
  version: string;
  uptime: number;
  services: { database: string; cache: string; ai_providers: string };
}

type Service = keyof HealthResult["services"];
interface Verdict {
  value: string;
  /** Why, for the log only. */
  error?: unknown;
}
const HEALTHY: Verdict = { value: "healthy" };
const TIMED_OUT = Symbol("timed out");

/** The health check of one Relay: call it per request; it remembers the last values to log changes. */
export function hostedHealth(relay: Relay): () => Promise<HealthResult> {
  const last = new Map<Service, string>();
  // The last integrity verdict, used while a new one takes longer than a probe may wait.
  let intact = true;

  async function database(): Promise<Verdict> {
    const integrity = relay.store.integrityCheck().then((ok) => (intact = ok));
    try {
      const [pinged, verdict] = await Promise.all([bounded(relay.store.ping()), bounded(integrity)]);
      if (pinged === TIMED_OUT) return { value: "unreachable", error: `no answer within ${CHECK_TIMEOUT_MS} ms` };
      return (verdict === TIMED_OUT ? intact : verdict) ? HEALTHY : { value: "integrity_failed" };
    } catch (error) {
      return { value: "unreachable", error };
    }
  }

  async function cache(): Promise<Verdict> {
    const url = relay.config().cloud.redisUrl;
    try {
      if (url !== undefined) return await pingRedis(url, CHECK_TIMEOUT_MS).then(() => HEALTHY);
      const probe = await bounded(relay.rate.peek(PROBE_KEY, 1));
      return probe !== TIMED_OUT && probe.allowed ? HEALTHY : { value: "unhealthy", error: "the in-process rate limiter refused an unused key" };
    } catch (error) {
      return { value: url !== undefined ? "unreachable" : "unhealthy", error };
    }
  }

  function aiProviders(): Verdict {
    const config = relay.config();
    let credentialed = 0;
    for (const p of relay.registry.providers.values()) {
      if (!hasCredentials(p, config, relay.env)) continue;
      credentialed++;
      if (!relay.health.provider(p.name).coolingDown) return HEALTHY;
    }
    return { value: credentialed === 0 ? "no_credentials" : "all_cooled_down" };
  }

  function note(service: Service, v: Verdict): string {
    const before = last.get(service);
    last.set(service, v.value);
    if (before === v.value) return v.value;
    if (v !== HEALTHY) relay.log.warn(`health: ${service} is ${v.value}`, v.error === undefined ? {} : { error: v.error });
    else if (before !== undefined) relay.log.info(`health: ${service} is healthy again`, { was: before });
    return v.value;
  }

  return async () => {
    const [db, c] = await Promise.all([database(), cache()]);
    const services = { database: note("database", db), cache: note("cache", c), ai_providers: note("ai_providers", aiProviders()) };
    const ok = services.database === "healthy" && services.cache === "healthy" && services.ai_providers === "healthy";
    return {
      status: ok ? "ok" : "degraded",
      timestamp: new Date().toISOString(),
      version: VERSION,
      uptime: Math.floor((Date.now() - relay.startedAt) / 1000),
      services,
    };
  };
}

/**
 * A provider counts when it is enabled and has a key; one that needs none (Ollama) counts once its
 * base URL is set, since every install has its default and most have nothing listening there.
 */
function hasCredentials(p: ProviderPlugin, config: Config, env: Record<string, string | undefined>): boolean {
  return providerReady(p, config, env) && (needsKey(p) || baseUrlSource(p, config, env).from !== "default");
}

/** `p`'s value, or TIMED_OUT when it takes longer than CHECK_TIMEOUT_MS (it keeps running). */
async function bounded<T>(p: Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(resolve, CHECK_TIMEOUT_MS, TIMED_OUT)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
