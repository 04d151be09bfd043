// createRouter (src/portable.ts) in Bun: the options behave as documented. The environment is only
// the one handed in; a bad config, a strategy's bad options and clashing plugins throw as the
// server's start does; a record callback that fails is logged, not retried; close() waits for the
// records still being handed over.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { definePlugin, type StrategyPlugin } from "../../src/plugin/api.ts";
import { ConfigError, createRouter, type RouteCall, type RunRecord } from "../../src/portable.ts";
import { type FakeVendor, startFakeVendor } from "../fakes/vendor.ts";

let vendor: FakeVendor;
beforeAll(async () => {
  vendor = await startFakeVendor("openai");
});
afterAll(() => vendor.close());

const env = () => ({ OPENAI_API_KEY: "sk-test", RELAY_OPENAI_BASE_URL: `${vendor.url}/v1` });
const call: RouteCall = { format: "openai", caller: { surface: "test" }, body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } };

const strategy = (over: Partial<StrategyPlugin>): StrategyPlugin =>
  definePlugin({ kind: "strategy", name: "mine", plan: (input) => ({ candidates: [input.requestedModel], mode: "fallback", reasons: [] }), ...over });

describe("createRouter", () => {
  test("routes with the keys and base URLs of its env option, and hands each record to onRecord", async () => {
    const records: RunRecord[] = [];
    const router = createRouter({ env: env(), onRecord: (r) => void records.push(r) });
    const result = await router.route(call);
    await router.close();
    expect(result.kind).toBe("answer");
    expect(records.map((r) => [r.routedModel, r.status])).toEqual([["gpt-4o-mini", 200]]);
    // Closed: a later call is refused, and no vendor is called for it.
    const requests = vendor.requests.length;
    const refused = await router.route(call);
    expect(refused.kind === "error" && [refused.error.status, refused.error.code]).toEqual([503, "router_closed"]);
    expect(vendor.requests.length).toBe(requests);
  });

  test("reads no key from process.env", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-from-process-env";
    try {
      const router = createRouter({ env: { RELAY_OPENAI_BASE_URL: `${vendor.url}/v1` } });
      const result = await router.route(call);
      await router.close();
      expect(result.kind === "error" && result.error.code).toBe("missing_api_key");
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  test("a bad config throws the loader's ConfigError, naming the setting", () => {
    expect(() => createRouter({ config: { limits: { hourlyUsd: "lots" } } })).toThrow(new ConfigError('config: /limits/hourlyUsd: Expected number (got "lots")'));
    expect(() => createRouter({ config: { routing: { strategies: { cascade: { chain: [] } } } } })).toThrow(/^config: routing\.strategies\.cascade\.chain/);
  });

  test("a plugin's options are vetted against its schema, and plugins that clash throw", () => {
    const picky = strategy({ checkOptions: (o) => (o.level === undefined ? "level is required" : undefined) });
    expect(() => createRouter({ plugins: [picky] })).toThrow(new ConfigError("config: routing.strategies.mine: level is required"));
    expect(createRouter({ plugins: [picky], config: { routing: { strategies: { mine: { level: 1 } } } } })).toBeDefined();
    const both = [strategy({ name: "one", servesConcreteModels: true }), strategy({ name: "two", servesConcreteModels: true })];
    expect(() => createRouter({ plugins: both })).toThrow(/^plugins\[1\]: strategy "two" declares servesConcreteModels/);
  });

  test("a record callback that fails is logged once; the call is answered", async () => {
    const lines: string[] = [];
    let calls = 0;
    const router = createRouter({
      env: env(),
      log: (l) => lines.push(l),
      onRecord: () => {
        calls++;
        throw new Error("sink down");
      },
    });
    expect((await router.route(call)).kind).toBe("answer");
    await router.close();
    expect(calls).toBe(1);
    const failed = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "onRecord failed");
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toEqual({ name: "Error", message: "sink down" });
  });
});
