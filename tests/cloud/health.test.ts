// GET /api/health on the `relay cloud` listener (spec §2.5), over real HTTP, on SQLite and on
// Postgres: real probes of the store, the cache (in-process, or a real Redis at REDIS_URL, default
// 127.0.0.1:6379) and the providers, each value changing status and the HTTP status.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { CHECK_TIMEOUT_MS } from "../../src/surfaces/cloud/health.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { closedPort } from "../fakes/vendor.ts";
import { startRelay, type StartRelayOptions, type TestRelay } from "../helpers/relay.ts";
import { chatBody, post, startWorld } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";
import { tcpForwarder } from "./tcp-forwarder.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const KEY = { ANTHROPIC_API_KEY: "sk-ant-health" };

/** The cloud listener of a running Relay (the proxy listener stays up beside it, as `relay start` and `relay cloud` would). */
function cloudOf(r: TestRelay): Listener {
  return listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
}

async function health(cloud: Listener, path = "/api/health") {
  const started = performance.now();
  const res = await fetch(`${cloud.url}${path}`);
  return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started };
}

describe.each(["sqlite", "postgres"] as const)("GET /api/health on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  const store = () => (driver === "postgres" ? { store: { driver: "postgres", postgresUrl: db!.url } } : {});

  /** A Relay with its cloud listener; `fn` runs with both, and both are stopped after it. */
  async function withCloud(opts: StartRelayOptions, fn: (r: TestRelay, cloud: Listener) => Promise<void>) {
    const r = await startRelay({ ...opts, config: { ...store(), ...opts.config } });
    const cloud = cloudOf(r);
    try {
      await fn(r, cloud);
    } finally {
      await cloud.stop(100);
      await r.stop();
    }
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_health");
  });
  afterAll(async () => {
    await db?.drop();
  });

  test("with a provider key every service is healthy: 200, status ok, version and uptime", async () => {
    await withCloud({ env: KEY }, async (r, cloud) => {
      const { status, body } = await health(cloud);
      expect(status).toBe(200);
      expect(body).toEqual({
        status: "ok",
        timestamp: expect.any(String),
        version: pkg.version,
        uptime: expect.any(Number),
        services: { database: "healthy", cache: "healthy", ai_providers: "healthy" },
      });
      expect(body.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
      expect(Number.isInteger(body.uptime) && body.uptime >= 0).toBe(true);
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      expect(r.logs.some((l) => l.includes("health:"))).toBe(false);
    });
  });

  test("no provider key: ai_providers is no_credentials, status degraded, 503; /health still 200 with the same body", async () => {
    // Ollama needs no key but is not counted until its base URL is set.
    await withCloud({}, async (r, cloud) => {
      const api = await health(cloud);
      expect(api.status).toBe(503);
      expect(api.body.status).toBe("degraded");
      expect(api.body.services).toEqual({ database: "healthy", cache: "healthy", ai_providers: "no_credentials" });
      const live = await health(cloud, "/health");
      expect(live.status).toBe(200);
      expect(live.body.services).toEqual(api.body.services);
      expect(r.logs.filter((l) => l.includes("health: ai_providers is no_credentials"))).toHaveLength(1);
    });
  });

  test("a key for a disabled provider does not count; Ollama counts once its base URL is set", async () => {
    await withCloud({ env: KEY, config: { providers: { anthropic: { enabled: false } } } }, async (_, cloud) => {
      expect((await health(cloud)).body.services.ai_providers).toBe("no_credentials");
    });
    await withCloud({ env: { OLLAMA_HOST: "127.0.0.1:11434" } }, async (_, cloud) => {
      expect((await health(cloud)).body.services.ai_providers).toBe("healthy");
    });
  });

  test("every provider with a key cooled down: ai_providers is all_cooled_down until a cooldown ends", async () => {
    const w = await startWorld({ config: { ...store(), cooldown: { failures: 1 } } });
    const cloud = cloudOf(w.relay);
    try {
      w.openai.enqueue({ status: 503, errorMessage: "openai maintenance" });
      expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(503);
      // One of two cooled down: the other still serves.
      expect((await health(cloud)).body.services.ai_providers).toBe("healthy");

      w.anthropic.enqueue({ status: 503, errorMessage: "anthropic maintenance" });
      expect((await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"))).status).toBe(503);
      const cooled = await health(cloud);
      expect(cooled.status).toBe(503);
      expect(cooled.body).toMatchObject({ status: "degraded", services: { database: "healthy", cache: "healthy", ai_providers: "all_cooled_down" } });
      expect(JSON.stringify(cooled.body)).not.toContain("maintenance");

      w.clock.advance(121_000);
      const back = await health(cloud);
      expect(back.status).toBe(200);
      expect(back.body.services.ai_providers).toBe("healthy");
      expect(w.relay.logs.some((l) => l.includes("health: ai_providers is healthy again"))).toBe(true);
    } finally {
      await cloud.stop(100);
      await w.stop();
    }
  });

  test("a closed store: database is unreachable, at once", async () => {
    await withCloud({ env: KEY }, async (r, cloud) => {
      await r.relay.store.close();
      const { status, body, ms } = await health(cloud);
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: "degraded", services: { database: "unreachable", cache: "healthy", ai_providers: "healthy" } });
      expect(ms).toBeLessThan(CHECK_TIMEOUT_MS + 1_000);
      expect(r.logs.some((l) => l.includes("health: database is unreachable"))).toBe(true);
    });
  });

  test("Redis configured and reachable: cache healthy; configured (RELAY_REDIS_URL) to a closed port: unreachable", async () => {
    await withCloud({ env: KEY, config: { cloud: { redisUrl: REDIS_URL } } }, async (_, cloud) => {
      const { status, body } = await health(cloud);
      expect(body.services.cache).toBe("healthy");
      expect(status).toBe(200);
    });
    // This time from the environment, as a deployment would set it.
    await withCloud({ env: { ...KEY, RELAY_REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } }, async (r, cloud) => {
      const { status, body, ms } = await health(cloud);
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: "degraded", services: { database: "healthy", cache: "unreachable", ai_providers: "healthy" } });
      expect(ms).toBeLessThan(CHECK_TIMEOUT_MS + 1_000);
      expect(r.logs.some((l) => l.includes("health: cache is unreachable"))).toBe(true);
    });
  });
});

describe("GET /api/health with Postgres gone", () => {
  test("a Postgres that stops answering: database is unreachable within the timeout, and healthy once it answers again", async () => {
    const db = await postgresDatabase("relay_health");
    const pg = new URL(db.url);
    const forwarder = tcpForwarder(Number(pg.port || 5432));
    pg.port = String(forwarder.port);
    const r = await startRelay({ env: KEY, config: { store: { driver: "postgres", postgresUrl: pg.toString() } } });
    const cloud = cloudOf(r);
    try {
      expect((await health(cloud)).body.services.database).toBe("healthy");
      // Bytes to and from Postgres are swallowed: queries hang, as over a dead network.
      forwarder.blackhole();
      const { status, body, ms } = await health(cloud);
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: "degraded", services: { database: "unreachable", cache: "healthy", ai_providers: "healthy" } });
      expect(ms).toBeGreaterThanOrEqual(CHECK_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(CHECK_TIMEOUT_MS + 1_000);
      // Dropping the hung connections lets the pool open new ones through a forwarder that answers again.
      forwarder.reset();
      expect((await health(cloud)).body.services.database).toBe("healthy");
    } finally {
      forwarder.reset();
      await cloud.stop(100);
      await r.stop();
      forwarder.close();
      await db.drop();
    }
  });
});
