// Guards in front of the vendors: per-model rate limit, USD budgets under
// concurrency, and provider cooldown. Time moves only through the ManualClock.
import { afterEach, describe, expect, test } from "bun:test";
import { chatBody, errorOf, getJson, post, runs, startWorld, type World } from "./world.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.stop();
  w = undefined;
});

const chat = (world: World, model: string, extra: Record<string, unknown> = {}) => post(world.url, "/v1/chat/completions", chatBody(model, "Say hi", extra));

describe("rate limit", () => {
  test("the third request in a minute gets 429 with Retry-After until the oldest leaves the window", async () => {
    w = await startWorld({ config: { limits: { rpm: { "gpt-4o-mini": 2 } } } });
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);
    w.clock.advance(10_000);
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);
    w.clock.advance(10_000);

    const limited = await chat(w, "gpt-4o-mini");
    expect(limited.status).toBe(429);
    // The first request was 20 s ago: it leaves the 60 s window in 40 s.
    expect(limited.headers.get("retry-after")).toBe("40");
    const err = await errorOf(limited);
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.message).toStartWith("rate_limit_exceeded");
    expect(w.openai.requests).toHaveLength(2);

    // Other models are not limited by this model's quota.
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(200);

    w.clock.advance(39_000);
    expect((await chat(w, "gpt-4o-mini")).status).toBe(429);
    w.clock.advance(1_000);
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);
    expect(w.openai.requests).toHaveLength(3);
  });
});

describe("budget", () => {
  test("50 concurrent requests never overshoot a small hourly budget", async () => {
    const budget = 0.005;
    w = await startWorld({ config: { limits: { hourlyUsd: budget } } });
    // Fixed usage per request: 1000 in, 500 out on gpt-4o-mini = $0.00045, below the
    // estimate Relay reserves for max_tokens 1000. Latency keeps all 50 in flight together.
    w.openai.setDefault({ text: "ok", usage: { input: 1000, output: 500 }, latencyMs: 100 });
    const responses = await Promise.all(Array.from({ length: 50 }, () => chat(w!, "gpt-4o-mini", { max_tokens: 1000 })));
    const ok = responses.filter((r) => r.status === 200).length;
    const refused = responses.filter((r) => r.status === 429);
    for (const r of refused) expect((await errorOf(r)).code).toBe("budget_exceeded");
    expect(ok).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(ok + refused.length).toBe(50);
    expect(w.openai.requests).toHaveLength(ok);

    const stats = await getJson(w.url, "/control/stats", w.relay.admin);
    const spent = stats.budget.hourly.spentUsd as number;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(budget);
    expect(stats.budget.hourly.reservedUsd).toBe(0);
    const logged = (await runs(w)).filter((r) => r.status === 200).reduce((s, r) => s + r.costUsd, 0);
    expect(spent).toBeCloseTo(logged, 9);
    expect(spent).toBeCloseTo(ok * 0.00045, 9);
  });

  test("a refused request names the window and carries Retry-After", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 0.000001 } } });
    const res = await chat(w, "claude-opus-4-5");
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const err = await errorOf(res);
    expect(err.code).toBe("budget_exceeded");
    expect(err.message).toContain("daily budget");
    expect(w.anthropic.requests).toHaveLength(0);
  });
});

describe("cooldown", () => {
  const config = { cooldown: { failures: 2, windowSec: 60, durationSec: 30 } };

  test("enters after the configured failures, refuses without calling the vendor, and leaves after durationSec", async () => {
    w = await startWorld({ config });
    w.anthropic.enqueue({ status: 500, errorMessage: "down 1" }, { status: 503, errorMessage: "down 2" });
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(500);
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(503);
    expect(w.anthropic.requests).toHaveLength(2);

    const cooled = await chat(w, "claude-sonnet-4-5");
    expect(cooled.status).toBe(503);
    expect((await errorOf(cooled)).message).toBe("Provider is temporarily cooled down");
    expect(w.anthropic.requests).toHaveLength(2);
    // Another provider is unaffected.
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);

    w.clock.advance(29_000);
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(503);
    w.clock.advance(1_000);
    const served = await chat(w, "claude-haiku-4-5");
    expect(served.status).toBe(200);
    expect(w.anthropic.requests).toHaveLength(3);
  });

  test("failures spread wider than the window do not add up", async () => {
    w = await startWorld({ config });
    w.anthropic.enqueue({ status: 500 }, { status: 500 });
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(500);
    w.clock.advance(61_000);
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(500);
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(200);
  });

  test("only vendor-side failures count: the client's 400s never cool a provider down", async () => {
    w = await startWorld({ config });
    w.openai.enqueue({ status: 400 }, { status: 400 }, { status: 400 });
    for (let i = 0; i < 3; i++) expect((await chat(w, "gpt-4o-mini")).status).toBe(400);
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);
    expect(w.openai.requests).toHaveLength(4);
  });
});
