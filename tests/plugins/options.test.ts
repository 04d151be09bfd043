// Strategy options are checked against each strategy plugin's schema where they come into force, not
// per request. The case: `{"cascade":{"chain":5}}` was accepted at start and by
// /control/config, and then every svc:cascade request was a 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, defaults, loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/core/log.ts";
import { definePlugin, Type } from "../../src/plugin/api.ts";
import { checkStrategyOptions } from "../../src/plugin/options.ts";
import { Registry } from "../../src/plugin/registry.ts";
import { Relay } from "../../src/relay.ts";
import { builtinStrategies } from "../../src/strategies/index.ts";
import { FROM_SOURCE, childEnv, freePort, run, tempDir } from "../cli/relay-process.ts";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor } from "../fakes/types.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { writeOptionPlugins } from "./options-fixtures.ts";

const CHAIN_5 = { routing: { strategies: { cascade: { chain: 5 } } } };
const CHAIN_5_PROBLEM = "routing.strategies.cascade.chain: expected array";

let anthropic: FakeVendor;
let env: Record<string, string>;
beforeAll(async () => {
  anthropic = await startFakeVendor("anthropic");
  env = { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "test-key" };
});
afterAll(async () => {
  await anthropic?.close();
});

const builtins = (): Registry => {
  const registry = new Registry();
  for (const s of builtinStrategies) registry.register(s, "builtin");
  return registry;
};

const chat = (relay: TestRelay, model: string) =>
  fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }], max_completion_tokens: 50 }),
  });

const patch = (relay: TestRelay, body: unknown) =>
  fetch(`${relay.url}/control/config`, { method: "POST", headers: relay.adminJson, body: JSON.stringify(body) });

/** A RELAY_HOME with the given plugins in its plugins folder, for startRelay({ home }). */
function homeWith(plugins: Parameters<typeof writeOptionPlugins>[1]): string {
  const home = mkdtempSync(join(tmpdir(), "relay-options-"));
  writeOptionPlugins(join(home, "plugins"), plugins);
  return home;
}

describe("built-in strategies' options", () => {
  test("the defaults in the config schema are valid for every built-in", () => {
    expect(checkStrategyOptions(defaults().routing.strategies, builtins())).toEqual({ problems: [], unused: [] });
  });

  test("every option of every built-in is accepted when valid", () => {
    const strategies = {
      complexity: { tiers: { simple: "gpt-5-nano", moderate: "claude-sonnet-4-5", complex: "gemini-2.5-pro" }, thresholds: { moderate: 0.5, complex: 4 } },
      cascade: { chain: ["gpt-5-nano", "claude-opus-4-5"], maxEscalations: 0 },
      fallback: { chains: { "gpt-5": ["gpt-5-mini"], "gpt-4.1": [] }, default: ["claude-haiku-4-5"] },
    };
    expect(checkStrategyOptions(strategies, builtins())).toEqual({ problems: [], unused: [] });
    expect(checkStrategyOptions({}, builtins())).toEqual({ problems: [], unused: [] });
  });

  test("a misspelt option and options for a strategy nobody loaded are named", () => {
    const { problems, unused } = checkStrategyOptions({ cascade: { chian: ["gpt-5"] }, cascde: { chain: ["gpt-5"] } }, builtins());
    expect(problems).toEqual([{ path: "routing.strategies.cascade.chian", message: "unexpected property" }]);
    expect(unused).toEqual(["cascde"]);
  });

  test("a strategy named like an Object method is checked against its own options, not Object's", () => {
    const registry = builtins();
    const Target = Type.Object({ target: Type.String() });
    registry.register(definePlugin({ kind: "strategy", name: "constructor", options: Target, plan: () => ({ candidates: [], mode: "fallback", reasons: [] }) }), "test");
    expect(checkStrategyOptions({}, registry).problems).toEqual([{ path: "routing.strategies.constructor.target", message: "expected required property" }]);
    expect(checkStrategyOptions({ constructor: { target: "x" } }, registry).problems).toEqual([]);
  });
});

describe("at start", () => {
  test("relay start exits non-zero with the option's path, before listening", async () => {
    const home = tempDir("options-start");
    try {
      writeFileSync(join(home, "config.json"), JSON.stringify(CHAIN_5));
      const port = await freePort();
      const result = await run([...FROM_SOURCE, "start", "--port", String(port)], { env: childEnv(home) });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(CHAIN_5_PROBLEM);
      expect(result.stdout).not.toContain("relay listening");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);

  test("a user plugin's options are checked against its own schema, and fail the start", async () => {
    const home = homeWith(["pinned"]);
    try {
      const file = join(home, "config.json");
      writeFileSync(file, JSON.stringify({ pluginsDirs: [join(home, "plugins")], routing: { strategies: { pinned: { target: 7 } } } }));
      const create = Relay.create({ loaded: loadConfig({ file, env: { RELAY_HOME: home } }), env: { RELAY_HOME: home }, log: createLogger("error", () => {}) });
      await expect(create).rejects.toThrow(ConfigError);
      await expect(create).rejects.toThrow("routing.strategies.pinned.target: expected string");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("POST /control/config", () => {
  let relay: TestRelay;
  let home: string;
  beforeAll(async () => {
    home = homeWith(["pinned", "pinnedJson"]);
    relay = await startRelay({ home, env, config: { routing: { strategies: { pinned: { target: "claude-haiku-4-5" }, "pinned-json": { target: "claude-haiku-4-5" } } } } });
  });
  afterAll(async () => {
    await relay?.stop();
    rmSync(home, { recursive: true, force: true });
  });
  const configFile = () => join(home, "config.json");

  test("refuses the issue's patch with 400 naming the path; the file and the running config are unchanged", async () => {
    const before = readFileSync(configFile());
    const res = await patch(relay, CHAIN_5);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: { parameter: string } } };
    expect(error.code).toBe("invalid_config");
    expect(error.message).toContain(CHAIN_5_PROBLEM);
    expect(error.details.parameter).toBe("routing.strategies.cascade.chain");
    expect(readFileSync(configFile()).equals(before)).toBe(true);
    expect(relay.relay.config().routing.strategies.cascade).toEqual({ maxEscalations: 2 });
    // svc:cascade is still served, not a 500.
    const served = await chat(relay, "svc:cascade");
    expect(served.status).toBe(200);
    expect(served.headers.get("x-svc-strategy")).toBe("cascade");
  });

  test("checks a user plugin's options against its schema, TypeBox or hand-written JSON Schema", async () => {
    const before = readFileSync(configFile());
    const typebox = await patch(relay, { routing: { strategies: { pinned: { target: "" } } } });
    expect(typebox.status).toBe(400);
    expect(((await typebox.json()) as any).error.message).toContain("routing.strategies.pinned.target: expected string length >= 1");
    const json = await patch(relay, { routing: { strategies: { "pinned-json": { speed: "warp" } } } });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error.message).toContain("routing.strategies.pinned-json.speed");
    expect(readFileSync(configFile()).equals(before)).toBe(true);
  });

  test("refuses options for a strategy no loaded plugin has (a typo would sit unused)", async () => {
    const res = await patch(relay, { routing: { strategies: { cascde: { chain: ["claude-haiku-4-5"] } } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toBe('routing.strategies.cascde: no strategy plugin named "cascde" is loaded');
  });

  test("accepts valid options and routes with them", async () => {
    const res = await patch(relay, { routing: { strategies: { pinned: { target: "claude-sonnet-4-5", note: "ok" } } } });
    expect(res.status).toBe(200);
    const served = await chat(relay, "svc:pinned");
    expect(served.status).toBe(200);
    expect(served.headers.get("x-svc-routed-model")).toContain("claude-sonnet-4-5");
  });
});

describe("config reload", () => {
  test("invalid options are logged and the running config kept", async () => {
    const relay = await startRelay({ env });
    try {
      const file = join(relay.home, "config.json");
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), ...CHAIN_5 }));
      relay.relay.reloadConfig();
      expect(relay.relay.config().routing.strategies.cascade).toEqual({ maxEscalations: 2 });
      const failure = relay.logs.map((l) => JSON.parse(l)).find((r) => r.msg === "config reload failed; keeping the running config");
      expect(failure?.error.message).toContain(CHAIN_5_PROBLEM);
      expect((await chat(relay, "svc:cascade")).status).toBe(200);
    } finally {
      await relay.stop();
    }
  });
});

describe("plugin reload", () => {
  test("a user plugin whose configured options fail its schema is reported failed; requests get no 500", async () => {
    const home = mkdtempSync(join(tmpdir(), "relay-options-"));
    const relay = await startRelay({ home, env, config: { routing: { strategies: { pinned: { target: "" } } } } });
    try {
      // Nobody declares `pinned` yet: its options are unused, which start reports as a warning.
      expect(relay.logs.some((l) => l.includes("routing.strategies.pinned") && l.includes('"warn"'))).toBe(true);
      writeOptionPlugins(join(home, "plugins"), ["pinned"]);
      await relay.relay.loadUserPlugins(1);
      expect(relay.relay.plugins.failed).toEqual([
        { file: join(home, "plugins", "pinned.ts"), error: "invalid options: routing.strategies.pinned.target: expected string length >= 1" },
      ]);
      expect(relay.relay.registry.strategies.has("pinned")).toBe(false);
      const res = await chat(relay, "svc:pinned");
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.code).toBe("model_not_found");
    } finally {
      await relay.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("removing a replacement whose options the built-in rejects keeps the running plugins", async () => {
    const home = homeWith(["cascadeReplacement"]);
    const relay = await startRelay({ home, env, config: { routing: { strategies: { cascade: { style: "terse" } } } } });
    try {
      expect(relay.relay.registry.list()).toContainEqual({ kind: "strategy", name: "cascade", source: join(home, "plugins", "cascade.js") });
      unlinkSync(join(home, "plugins", "cascade.js"));
      const problems = await relay.relay.loadUserPlugins(2);
      expect(problems).toEqual(["routing.strategies.cascade.style: unexpected property"]);
      // The built-in would fail every svc:cascade request with these options: the replacement stays.
      const res = await chat(relay, "svc:cascade");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-svc-strategy")).toBe("cascade");
      expect(relay.logs.some((l) => l.includes("keeping the running plugins"))).toBe(true);
    } finally {
      await relay.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("any JSON Schema keyword is enforced (oneOf here); a schema whose $ref does not resolve fails the load, naming the pointer", async () => {
    const home = homeWith(["oneOf", "danglingRef"]);
    const relay = await startRelay({ home, env, config: { routing: { strategies: { "one-of": { mode: "fast" } } } } });
    try {
      expect(relay.relay.plugins.failed).toEqual([
        { file: join(home, "plugins", "dangling.js"), error: 'strategy "dangling": options schema /properties/mode/$ref: "#/$defs/mode" does not resolve within the schema' },
      ]);
      expect(relay.relay.registry.strategies.has("one-of")).toBe(true);
      const res = await patch(relay, { routing: { strategies: { "one-of": { mode: true } } } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toContain("routing.strategies.one-of.mode: expected a value matching exactly one oneOf schema (0 match)");
      expect((await patch(relay, { routing: { strategies: { "one-of": { mode: 2 } } } })).status).toBe(200);
    } finally {
      await relay.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
