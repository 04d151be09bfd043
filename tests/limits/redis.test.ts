// The Redis guards must behave exactly like the in-memory ones: same suites.
// Needs a Redis at REDIS_URL (default 127.0.0.1:6379). Unreachable → the
// suites are skipped with a printed reason, except when CI=true, where they fail.
import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { RedisBudgetGuard } from "../../src/store/redis/budget.ts";
import { RedisRateLimiter } from "../../src/store/redis/rate-limit.ts";
import { budgetGuardBehaviour } from "./budget-suite.ts";
import { rateLimiterBehaviour } from "./rate-limit-suite.ts";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const runPrefix = `relay-test:${crypto.randomUUID()}:`;

async function connect(): Promise<{ client?: RedisClient; reason: string }> {
  const client = new RedisClient(url, { connectionTimeout: 2000, autoReconnect: false, maxRetries: 0 });
  try {
    await client.connect();
    await client.send("PING", []);
    return { client, reason: "" };
  } catch (e) {
    client.close();
    return { reason: e instanceof Error ? e.message : String(e) };
  }
}

const { client, reason } = await connect();
const skip = client === undefined && process.env.CI !== "true";
if (skip) console.warn(`SKIPPED Redis limit tests: Redis unreachable at ${url} (${reason}); with CI=true this fails`);

let seq = 0;
/** Each limiter/guard storage gets its own key namespace under this run's prefix. */
const freshPrefix = () => `${runPrefix}${seq++}:`;

describe.skipIf(skip)("Redis", () => {
  test("Redis is reachable", () => expect(reason).toBe(""));

  rateLimiterBehaviour("Redis", (clock) => new RedisRateLimiter({ client: client!, prefix: freshPrefix(), clock }), 25);

  budgetGuardBehaviour(
    "Redis",
    () => {
      const prefix = freshPrefix();
      return { open: (clock, limits) => new RedisBudgetGuard({ client: client!, prefix, clock, limits }) };
    },
    25,
  );

  test("a reservation abandoned by a crashed instance stops counting after its ttl", async () => {
    const clock = new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
    const prefix = freshPrefix();
    const crashed = new RedisBudgetGuard({ client: client!, prefix, clock, limits: { hourlyUsd: 1 }, reservationTtlMs: 60_000 });
    expect((await crashed.reserve(1)).refused).toBe(false);
    const survivor = new RedisBudgetGuard({ client: client!, prefix, clock, limits: { hourlyUsd: 1 } });
    expect(await survivor.reserve(0.5)).toMatchObject({ refused: true, window: "hourly" });
    clock.advance(60_000);
    expect((await survivor.reserve(0.5)).refused).toBe(false);
  });

  test("limits are shared across instances", async () => {
    const clock = new ManualClock(0);
    const prefix = freshPrefix();
    const a = new RedisRateLimiter({ client: client!, prefix, clock });
    const b = new RedisRateLimiter({ client: client!, prefix, clock });
    expect((await a.acquire("m", 2)).allowed).toBe(true);
    expect((await b.acquire("m", 2)).allowed).toBe(true);
    expect(await a.acquire("m", 2)).toMatchObject({ allowed: false, retryAfterSec: 60 });
  });
});

afterAll(async () => {
  if (client === undefined) return;
  let cursor = "0";
  do {
    const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${runPrefix}*`, "COUNT", "500"])) as [string, string[]];
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== "0");
  client.close();
});
