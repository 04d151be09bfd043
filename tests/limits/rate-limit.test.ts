import { expect, test } from "bun:test";
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
