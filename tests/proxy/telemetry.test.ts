// /v1/telemetry/*: after real mixed traffic (two models, a stream, a vendor
// failure) the figures agree with the usage the fake vendors reported.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chatBody, getJson, messagesBody, post, readStream, runs, startWorld, type World } from "./world.ts";

// USD per million tokens, from the catalog: haiku 1/5, gpt-4o-mini 0.15/0.6, opus (baseline) 5/25.
const HAIKU_USD = (300 * 1 + 30 * 5) / 1e6;
const MINI_USD = (300 * 0.15 + 30 * 0.6) / 1e6;
const BASELINE_USD = (600 * 5 + 60 * 25) / 1e6;

let w: World;
const ids: Record<string, string> = {};
const get = async (path: string) => {
  const res = await fetch(`${w.url}${path}`, { headers: w.relay.admin });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  w = await startWorld({ config: { telemetry: { baselineModel: "claude-opus-4-5" } } });
  w.anthropic.enqueue(
    { text: "one", usage: { input: 100, output: 10 } },
    { text: "two", usage: { input: 200, output: 20 } },
    { status: 500, errorMessage: "sonnet exploded" },
  );
  w.openai.enqueue({ text: "streamed", usage: { input: 300, output: 30 } });

  const tagged = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"), { "x-svc-metadata": '{"team":"a"}' });
  expect(tagged.status).toBe(200);
  ids.tagged = tagged.headers.get("x-svc-request-id")!;
  expect((await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5"), { "x-api-key": "k" })).status).toBe(200);
  const stream = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { stream: true, stream_options: { include_usage: true } }));
  expect((await readStream(stream)).stalled).toBe(false);
  expect((await post(w.url, "/v1/chat/completions", chatBody("claude-sonnet-4-5"))).status).toBe(500);
  await w.relay.relay.writer.flush();
});
afterAll(() => w.stop());

describe("stats", () => {
  test("totals match the traffic", async () => {
    const { status, body } = await get("/v1/telemetry/stats?days=1");
    expect(status).toBe(200);
    expect(body).toMatchObject({ days: 1, requests: 4, errors: 1, inputTokens: 600, outputTokens: 60, fallbacks: 0 });
    expect(body.costUsd).toBeCloseTo(HAIKU_USD + MINI_USD, 12);
    expect(body.successRate).toBe(0.75);
    expect(body.latencyMs.p50).toBeGreaterThanOrEqual(0);
    const byModel = Object.fromEntries(body.models.map((m: any) => [m.model, m]));
    expect(byModel["claude-haiku-4-5"]).toMatchObject({ provider: "anthropic", requests: 2, errors: 0, inputTokens: 300, outputTokens: 30 });
    expect(byModel["gpt-4o-mini"]).toMatchObject({ provider: "openai", requests: 1, inputTokens: 300, outputTokens: 30 });
    expect(byModel["claude-sonnet-4-5"]).toMatchObject({ requests: 1, errors: 1 });
  });
});

describe("runs", () => {
  test("limit and offset paginate over the newest-first log with the total", async () => {
    const all = await get("/v1/telemetry/runs?limit=10");
    expect(all.body.total).toBe(4);
    const page = await get("/v1/telemetry/runs?limit=2&offset=1");
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.runs.map((r: any) => r.id)).toEqual(all.body.runs.slice(1, 3).map((r: any) => r.id));
  });

  test("the stream and the failure are logged as such", async () => {
    const logged = await runs(w);
    const stream = logged.find((r) => r.stream)!;
    expect(stream).toMatchObject({ routedModel: "gpt-4o-mini", outcome: "ok", inputTokens: 300, outputTokens: 30 });
    const failed = logged.find((r) => r.status === 500)!;
    expect(failed).toMatchObject({ routedModel: "claude-sonnet-4-5", outcome: "error" });
    expect(failed.error).toContain("sonnet exploded");
  });

  test.each([
    ["runs?limit=0", "limit"],
    ["runs?limit=abc", "limit"],
    ["runs?offset=-1", "offset"],
    ["stats?days=0", "days"],
    ["savings?days=x", "days"],
  ])("%s is a 400 naming the parameter", async (query, parameter) => {
    const { status, body } = await get(`/v1/telemetry/${query}`);
    expect(status).toBe(400);
    expect(body.error.details.parameter).toBe(parameter);
  });
});

describe("savings", () => {
  test("savedUsd = baselineUsd - actualUsd, positive when traffic went to cheaper models", async () => {
    const { status, body } = await get("/v1/telemetry/savings?days=1");
    expect(status).toBe(200);
    expect(body.baselineModel).toBe("claude-opus-4-5");
    expect(body.actualUsd).toBeCloseTo(HAIKU_USD + MINI_USD, 12);
    expect(body.baselineUsd).toBeCloseTo(BASELINE_USD, 12);
    expect(body.savedUsd).toBeCloseTo(body.baselineUsd - body.actualUsd, 12);
    expect(body.savedUsd).toBeGreaterThan(0);
    expect(body.savedPercent).toBeCloseTo((body.savedUsd / body.baselineUsd) * 100, 9);
  });
});

describe("health", () => {
  test("a provider without a key is no_credentials; a failing one is degraded with its last error", async () => {
    const { body } = await get("/v1/telemetry/health");
    const byName = Object.fromEntries(body.providers.map((p: any) => [p.provider, p]));
    expect(byName.google.state).toBe("no_credentials");
    expect(byName.anthropic.state).toBe("degraded");
    expect(byName.anthropic.lastError).toBe("sonnet exploded");
    expect(byName.anthropic.requests).toBe(3);
    expect(byName.openai).toMatchObject({ state: "healthy", successRate: 1, lastError: null });
  });

  test("a cooled-down provider is reported as such", async () => {
    const cooled = await startWorld({ config: { cooldown: { failures: 1 } } });
    try {
      cooled.openai.enqueue({ status: 503, errorMessage: "maintenance" });
      expect((await post(cooled.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(503);
      const openai = (await getJson(cooled.url, "/v1/telemetry/health", cooled.relay.admin)).providers.find((p: any) => p.provider === "openai");
      expect(openai).toMatchObject({ state: "cooled_down", lastError: "maintenance" });
      expect(Date.parse(openai.cooldownEndsAt)).toBeGreaterThan(cooled.clock.now());
    } finally {
      await cooled.stop();
    }
  });
});

describe("metadata", () => {
  test("x-svc-metadata lands in the run's metadata", async () => {
    const run = (await runs(w)).find((r) => r.id === ids.tagged)!;
    expect(run.metadata).toEqual({ team: "a" });
  });

  test.each(["not json", "[1]", '"team"'])("an invalid x-svc-metadata (%s) is a 400", async (value) => {
    const before = w.anthropic.requests.length;
    const res = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"), { "x-svc-metadata": value });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.parameter).toBe("x-svc-metadata");
    expect(w.anthropic.requests.length).toBe(before);
  });
});
