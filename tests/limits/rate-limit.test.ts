import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limit.ts";
import { rateLimiterBehaviour } from "./rate-limit-suite.ts";

rateLimiterBehaviour("in-memory", (clock) => new MemoryRateLimiter(clock), 200);

test("keys idle for a whole window are evicted; keys with live entries are kept", async () => {
  const clock = new ManualClock(0);
  const rl = new MemoryRateLimiter(clock);
  await rl.acquire("idle-a", 5);
  await rl.acquire("idle-b", 5);
  clock.set(30_000);
  await rl.acquire("recent", 5);
  expect(rl.trackedKeys).toBe(3);
  clock.set(61_000);
  await rl.acquire("new", 5);
  expect(rl.trackedKeys).toBe(2);
  // The kept key still remembers its request.
  expect((await rl.peek("recent", 5)).remaining).toBe(4);
});

test("peek on an unknown key does not start tracking it", async () => {
  const rl = new MemoryRateLimiter(new ManualClock(0));
  await rl.peek("ghost", 3);
  expect(rl.trackedKeys).toBe(0);
});

describe("memory", () => {
  test("a huge limit reserves memory only for requests that arrive", async () => {
    const limiter = new MemoryRateLimiter(new ManualClock(0));
    const before = process.memoryUsage().external;
    for (let i = 0; i < 100; i++) expect((await limiter.acquire("k", 100_000_000)).allowed).toBe(true);
    // 100 timestamps need ~1 KB; preallocating the limit would take 800 MB.
    expect(process.memoryUsage().external - before).toBeLessThan(10 * 1024 * 1024);
    expect((await limiter.peek("k", 100_000_000)).remaining).toBe(100_000_000 - 100);
  });

  test("growing past the initial ring keeps exact sliding-window answers", async () => {
    const clock = new ManualClock(0);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 40; i++) {
      clock.set(i * 1000);
      expect((await limiter.acquire("k", 40)).allowed).toBe(true);
    }
    clock.set(40_000);
    const refused = await limiter.acquire("k", 40);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSec).toBe(20); // the request at t=0 leaves the window at t=60 s
    clock.set(60_001);
    expect((await limiter.acquire("k", 40)).allowed).toBe(true);
  });
});
