// The shipped example plugins load through the real plugin host and do what
// their comments say, including end to end through a running Relay.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadPlugins } from "../../src/plugin/host.ts";
import type { ProviderPlugin, StrategyPlugin } from "../../src/plugin/api.ts";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor } from "../fakes/types.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { CATALOG, chat, fakeContext, routeInput } from "../strategies/fakes.ts";

const EXAMPLES = resolve(import.meta.dir, "../../plugins/examples");

const { loaded, failed } = await loadPlugins([EXAMPLES]);
const byName = new Map(loaded.map((l) => [l.plugin.name, l.plugin]));
const strategy = byName.get("cheapest-capable") as StrategyPlugin;
const provider = byName.get("local-openai") as ProviderPlugin;

test("both examples load through the plugin host without failures", () => {
  expect(failed).toEqual([]);
  expect(loaded.map((l) => [l.file.slice(EXAMPLES.length + 1), l.plugin.kind, l.plugin.name]).sort()).toEqual([
    ["cheapest-capable.ts", "strategy", "cheapest-capable"],
    ["local-openai.ts", "provider", "local-openai"],
  ]);
});

describe("cheapest-capable strategy", () => {
  test("answers to svc:cheapest", () => {
    expect(strategy.models).toEqual(["svc:cheapest"]);
  });

  test("picks the cheapest priced models first and skips unpriced ones", async () => {
    const plan = await strategy.plan(routeInput("svc:cheapest", chat("hi")), fakeContext(CATALOG));
    expect(plan.mode).toBe("fallback");
    expect(plan.candidates).toEqual(["acme:text-only-cheap", "openai:gpt-5-nano", "openai:gpt-5-mini"]);
    expect(plan.reasons[0]).toContain("text-only-cheap");
  });

  test("requires tool support when the request has tools, and skips unavailable providers", async () => {
    const req = chat("weather?", { tools: [{ name: "get_weather", parameters: { type: "object" } }] });
    const plan = await strategy.plan(routeInput("svc:cheapest", req), fakeContext(CATALOG, {}, ["openai"]));
    expect(plan.candidates).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-5"]);
    expect(plan.reasons[0]).toContain("tools");
  });

  test("returns no candidates, with a reason, when nothing fits", async () => {
    const plan = await strategy.plan(routeInput("svc:cheapest", chat("hi")), fakeContext(CATALOG, {}, ["openai", "anthropic", "acme"]));
    expect(plan.candidates).toEqual([]);
    expect(plan.reasons[0]).toContain("no priced, available model");
  });
});

describe("local-openai provider", () => {
  test("declares an OpenAI-compatible server with its own base URL variable and two models", () => {
    expect(provider.format).toBe("openai");
    expect(provider.baseUrlEnv).toEqual(["LOCAL_OPENAI_BASE_URL"]);
    expect(provider.apiKeyEnv ?? []).toEqual([]);
    expect(provider.models!.map((m) => m.id)).toEqual(["qwen2.5-7b-instruct", "llama-3.1-8b-instruct"]);
    expect(provider.models!.every((m) => m.provider === "local-openai")).toBe(true);
    expect(provider.modelPatterns).toEqual(["qwen*", /^llama-.*-local$/]);
  });

  test("sends a bearer token only when one is configured", () => {
    const ctx = { model: "qwen2.5-7b-instruct", stream: false, baseUrl: "http://gpu-box:8000/v1", clientHeaders: new Headers() };
    expect(provider.request(ctx)).toEqual({ url: "http://gpu-box:8000/v1/chat/completions", headers: { "content-type": "application/json" } });
    expect(provider.request({ ...ctx, apiKey: "vllm-key" }).headers.authorization).toBe("Bearer vllm-key");
  });

  test("renames max_completion_tokens for servers that only know max_tokens", () => {
    const ctx = { model: "m", stream: false, baseUrl: "http://x", clientHeaders: new Headers() };
    expect(provider.adaptBody!({ model: "m", max_completion_tokens: 50 }, ctx)).toEqual({ model: "m", max_tokens: 50 });
    expect(provider.adaptBody!({ model: "m", max_tokens: 10, max_completion_tokens: 50 }, ctx)).toEqual({ model: "m", max_tokens: 10, max_completion_tokens: 50 });
  });
});

describe("both examples in a running Relay", () => {
  let vllm: FakeVendor;
  let relay: TestRelay;
  beforeAll(async () => {
    vllm = await startFakeVendor("openai");
    relay = await startRelay({ env: { LOCAL_OPENAI_BASE_URL: `${vllm.url}/v1` } });
    // startRelay loads plugins from its home's plugins folder: install the examples there as a user would.
    const dir = join(relay.home, "plugins");
    mkdirSync(dir, { recursive: true });
    for (const f of ["cheapest-capable.ts", "local-openai.ts"]) copyFileSync(join(EXAMPLES, f), join(dir, f));
    await relay.relay.loadUserPlugins(1);
  });
  afterAll(async () => {
    await relay?.stop();
    await vllm?.close();
  });

  test("svc:cheapest routes to the free local model, served by the local provider", async () => {
    const res = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "svc:cheapest", messages: [{ role: "user", content: "hello" }], max_completion_tokens: 100 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-strategy")).toBe("cheapest-capable");
    expect(res.headers.get("x-svc-provider")).toBe("local-openai");
    const sent = vllm.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(sent).toHaveLength(1);
    expect(["qwen2.5-7b-instruct", "llama-3.1-8b-instruct"]).toContain(sent[0]!.json.model);
    // The provider's body adaptation ran.
    expect(sent[0]!.json.max_tokens).toBe(100);
    expect(sent[0]!.json.max_completion_tokens).toBeUndefined();
  });

  test("a model the server loads but the plugin does not list is reached by its pattern or its prefix", async () => {
    const before = vllm.requests.length;
    for (const model of ["qwen3-coder-30b", "local-openai:mistral-small"]) {
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-svc-provider")).toBe("local-openai");
      await res.text();
    }
    expect(vllm.requests.slice(before).map((r) => r.json.model)).toEqual(["qwen3-coder-30b", "mistral-small"]);
  });
});
