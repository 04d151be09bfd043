// No built-in privileges (issue 35, item 4): the roles built-ins used to hold by name are
// declarations of the public plugin API, read once per registry or catalog build, and a user
// plugin that declares them gets the same behaviour.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { ControlState } from "../../src/core/control.ts";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { CooldownTracker } from "../../src/core/limits/cooldown.ts";
import { HEALTHY, HealthBoard, type HealthFeed } from "../../src/core/limits/health.ts";
import { createLogger } from "../../src/core/log.ts";
import { keyFor, readClientCredential } from "../../src/core/router/client-credential.ts";
import type { RouterDeps } from "../../src/core/router/deps.ts";
import { planRoute } from "../../src/core/router/plan.ts";
import { definePlugin, type ProviderPlugin, type RelayPlugin, type StrategyPlugin } from "../../src/plugin/api.ts";
import { Registry } from "../../src/plugin/registry.ts";
import { builtinProviders } from "../../src/providers/index.ts";
import { builtinStrategies } from "../../src/strategies/index.ts";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor } from "../fakes/types.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { chat } from "../strategies/fakes.ts";

const strategy = (s: Partial<StrategyPlugin> & { name: string }): StrategyPlugin =>
  definePlugin({ kind: "strategy", plan: (input) => ({ candidates: [input.requestedModel], mode: "fallback", reasons: [`planned by ${s.name}`] }), ...s });

const provider = (p: Partial<ProviderPlugin> & { name: string }): ProviderPlugin =>
  definePlugin({ kind: "provider", format: "openai", baseUrl: "http://127.0.0.1:9/v1", request: (ctx) => ({ url: `${ctx.baseUrl}/chat/completions`, headers: {} }), ...p });

/** Built-ins, then `user` as user plugins (source: their name's file). */
function registryWith(...user: RelayPlugin[]): Registry {
  const registry = new Registry();
  for (const p of builtinProviders) registry.register(p, "builtin");
  for (const s of builtinStrategies) registry.register(s, "builtin");
  for (const p of user) registry.register(p, `/plugins/${p.name}.ts`);
  return registry;
}

/** What planRoute() reads of a running Relay, around `registry` and `health`. */
function depsOf(registry: Registry, health: HealthFeed[] = []): RouterDeps {
  const env = { OPENAI_API_KEY: "x", ANTHROPIC_API_KEY: "x" };
  const config = loadConfig({ file: "test-config.json", fileText: "{}", env }).config;
  const deps = { config: () => config, env, log: createLogger("error", () => {}), registry, catalog: new Catalog(), health: new HealthBoard(health), control: new ControlState() };
  return deps as unknown as RouterDeps;
}

const plan = (deps: RouterDeps, model: string, stream = false) =>
  planRoute(deps, { request: chat("hi", { model, stream }), requestedModel: model, clientFormat: "openai", headers: new Headers() });

describe("servesConcreteModels: the strategy for concrete model names", () => {
  test("the built-in fallback declares it and plans concrete names", async () => {
    const registry = registryWith();
    expect(registry.concreteStrategy()?.name).toBe("fallback");
    expect(registry.problems()).toEqual([]);
    expect((await plan(depsOf(registry), "gpt-4o-mini")).strategy).toBe("fallback");
  });

  test("a user replacement of fallback that declares it plans them", async () => {
    const registry = registryWith(strategy({ name: "fallback", servesConcreteModels: true }));
    const routing = await plan(depsOf(registry), "gpt-4o-mini");
    expect(routing.plan.reasons).toEqual(["planned by fallback"]);
  });

  test("a replacement inherits nothing by name: none declares it → a warning at load and 500 strategy_missing", async () => {
    const registry = registryWith(strategy({ name: "fallback" }));
    expect(registry.concreteStrategy()).toBeUndefined();
    expect(registry.problems()[0]).toContain("no loaded strategy declares servesConcreteModels");
    expect(() => plan(depsOf(registry), "gpt-4o-mini")).toThrow(expect.objectContaining({ status: 500, code: "strategy_missing" }));
    // Virtual models are unaffected.
    expect((await plan(depsOf(registry), "svc:auto")).strategy).toBe("complexity");
  });

  test("a user strategy of another name takes the role from the built-in", async () => {
    const registry = registryWith(strategy({ name: "mine", servesConcreteModels: true }));
    expect((await plan(depsOf(registry), "gpt-4o-mini")).strategy).toBe("mine");
  });

  test("two user plugins cannot both claim it: the second fails to register, changing nothing", () => {
    const registry = registryWith(strategy({ name: "mine", servesConcreteModels: true }));
    expect(() => registry.register(strategy({ name: "theirs", servesConcreteModels: true }), "/plugins/theirs.ts")).toThrow(
      'strategy "theirs" declares servesConcreteModels, but strategy "mine" already does',
    );
    expect(registry.strategies.has("theirs")).toBe(false);
    expect(registry.concreteStrategy()?.name).toBe("mine");
  });

  test("is checked to be a boolean", () => {
    expect(() => strategy({ name: "x", servesConcreteModels: "yes" as unknown as boolean })).toThrow("servesConcreteModels must be a boolean");
  });
});

describe("streamStandIn: a strategy that needs whole answers", () => {
  const judging = strategy({
    name: "judgy",
    models: ["svc:judgy"],
    streamStandIn: "quick",
    plan: () => ({ candidates: ["gpt-4o-mini", "gpt-4o"], mode: "cascade", reasons: ["judgy"] }),
    judge: () => ({ accept: true }),
  });
  const quick = strategy({ name: "quick", plan: () => ({ candidates: ["gpt-4o-mini"], mode: "fallback", reasons: ["quick"] }) });

  test("a user strategy plans whole answers itself and hands streams to its declared stand-in", async () => {
    const deps = depsOf(registryWith(judging, quick));
    expect(await plan(deps, "svc:judgy")).toMatchObject({ strategy: "judgy", plan: { mode: "cascade" } });
    expect(await plan(deps, "svc:judgy", true)).toMatchObject({ strategy: "quick", plan: { mode: "fallback" }, judge: undefined });
  });

  test("the built-in cascade declares complexity; a replacement named cascade without it plans its streams itself", async () => {
    expect(await plan(depsOf(registryWith()), "svc:cascade", true)).toMatchObject({ strategy: "complexity" });
    const plain = strategy({ name: "cascade", models: ["svc:cascade"], plan: () => ({ candidates: ["gpt-4o-mini"], mode: "cascade", reasons: [] }) });
    expect(await plan(depsOf(registryWith(plain)), "svc:cascade", true)).toMatchObject({ strategy: "cascade" });
  });

  test("a stand-in that is not loaded is reported at load, and the strategy plans its streams", async () => {
    const registry = registryWith(judging);
    expect(registry.problems()).toEqual(['strategy "judgy" names streamStandIn "quick", which is not loaded: it plans its streams itself']);
    expect((await plan(depsOf(registry), "svc:judgy", true)).strategy).toBe("judgy");
  });

  test("must name another strategy", () => {
    expect(() => strategy({ name: "self", streamStandIn: "self" })).toThrow("streamStandIn must name another strategy");
  });
});

describe("modelPatterns and passthrough prefixes", () => {
  const local = provider({ name: "local-openai", modelPatterns: [/^qwen/g, "llama-*-local"] });
  const catalog = new Catalog({ providers: [...builtinProviders, local] });

  test("every registered provider's name is a passthrough prefix", () => {
    expect(catalog.resolve("local-openai:qwen")).toMatchObject({ provider: "local-openai", id: "qwen" });
    expect(catalog.resolve("local-openai/anything-at-all")).toMatchObject({ provider: "local-openai", id: "anything-at-all" });
    expect(catalog.resolve("groq:some-model")).toMatchObject({ provider: "groq", id: "some-model" });
    expect(new Catalog().resolve("local-openai:qwen")).toBeUndefined();
  });

  test("bare names matching a provider's patterns route to it; a `g` flag keeps no state between names", () => {
    for (const name of ["qwen2.5-coder", "QWEN3", "qwen-max"]) expect(catalog.resolve(name)).toMatchObject({ provider: "local-openai", id: name });
    expect(catalog.resolve("llama-3-local")).toMatchObject({ provider: "local-openai" });
    expect(catalog.resolve("llama-3-remote")).toBeUndefined();
  });

  test("names the catalog lists win over patterns", () => {
    const greedy = provider({ name: "greedy", modelPatterns: ["*"] });
    const c = new Catalog({ providers: [...builtinProviders, greedy] });
    expect(c.resolve("gpt-4o-mini")?.provider).toBe("openai");
    expect(c.resolve("never-heard-of-it")?.provider).toBe("greedy");
  });

  test("a bad pattern fails the load", () => {
    expect(() => provider({ name: "bad", modelPatterns: [""] })).toThrow("a model pattern must be a RegExp or a non-empty glob string");
    expect(() => provider({ name: "bad", modelPatterns: "qwen*" as unknown as string[] })).toThrow("modelPatterns must be a list");
  });
});

describe("health: one view any source feeds", () => {
  const qwen = { id: "gpt-4o-mini", provider: "openai", aliases: [], capabilities: { tools: true, vision: true, json: true, reasoning: false, streaming: true }, routable: true };

  test("merges sources: cooling down if any says so, failures add up, the latest error wins", () => {
    const clock = new ManualClock(1_000);
    const local = new CooldownTracker({ failureThreshold: 3 }, clock);
    local.recordFailure("openai", "overloaded");
    clock.advance(10);
    const shared: HealthFeed = { modelFacts: (m) => (m.id === "gpt-4o-mini" ? { coolingDown: true, cooldownEndsAt: 9_000, recentFailures: 2, lastError: "shared: 529", lastFailureAt: 1_005 } : undefined) };
    const board = new HealthBoard([local, shared]);
    expect(board.provider("openai")).toEqual({ coolingDown: false, recentFailures: 1, lastError: "overloaded", lastFailureAt: 1_000 });
    expect(board.model(qwen)).toEqual({ coolingDown: true, cooldownEndsAt: 9_000, recentFailures: 3, lastError: "shared: 529", lastFailureAt: 1_005 });
    expect(board.provider("anthropic")).toBe(HEALTHY);
  });

  test("the router's availability reads it: a provider another source cools down leaves the plans", async () => {
    const deps = depsOf(registryWith());
    const before = (await plan(deps, "svc:auto")).candidates.map((m) => m.provider);
    expect(before).toContain("openai");
    const cooled = depsOf(registryWith(), [{ providerFacts: (name) => (name === "openai" ? { coolingDown: true, recentFailures: 0 } : undefined) }]);
    const after = (await plan(cooled, "svc:auto")).candidates.map((m) => m.provider);
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContain("openai");
  });
});

describe("clientCredential: a provider's credential style", () => {
  test("reads the declared headers in order; authorization as a Bearer token", () => {
    const style = { format: "openai" as const, headers: ["x-acme-key", "authorization"] };
    expect(readClientCredential(style, new Headers({ "x-acme-key": " k1 ", authorization: "Bearer k2" }))).toBe("k1");
    expect(readClientCredential(style, new Headers({ authorization: "Bearer  k2 " }))).toBe("k2");
    expect(readClientCredential(style, new Headers({ authorization: "Basic abc" }))).toBeUndefined();
    expect(readClientCredential(style, new Headers())).toBeUndefined();
  });

  test("is checked at load", () => {
    expect(() => provider({ name: "x", clientCredential: { format: "openai", headers: [] } })).toThrow("clientCredential.headers must be a non-empty list");
    expect(() => provider({ name: "x", clientCredential: { format: "soap" as "openai", headers: ["a"] } })).toThrow("clientCredential.format is unknown");
  });

  test("the built-in anthropic declares it; a replacement without it owns no client credential", () => {
    expect(registryWith().clientCredentialOwner("anthropic")?.name).toBe("anthropic");
    const plain = provider({ name: "anthropic", format: "anthropic" });
    expect(registryWith(plain).clientCredentialOwner("anthropic")).toBeUndefined();
  });

  test("the built-in anthropic's oauthPrefix: a plan-bound token serves the model asked for; Relay's key a rerouted one", () => {
    const deps = depsOf(registryWith());
    const anthropic = deps.registry.providers.get("anthropic")!;
    const sonnet = deps.catalog.resolve("claude-sonnet-4-5")!;
    const oauth = { owner: anthropic, key: "sk-ant-oat01-abc" };
    expect(keyFor(deps, anthropic, sonnet, "claude-sonnet-4-5", oauth)).toBe("sk-ant-oat01-abc");
    expect(keyFor(deps, anthropic, sonnet, "svc:auto", oauth)).toBe("x");
    expect(keyFor(deps, anthropic, sonnet, "svc:auto", { owner: anthropic, key: "sk-ant-api03-abc" })).toBe("sk-ant-api03-abc");
  });

  describe("a user provider with its own style, over HTTP", () => {
    let vendor: FakeVendor;
    let relay: TestRelay;
    const ACME = `import { definePlugin } from "relay/plugin";
export default definePlugin({
  kind: "provider",
  name: "acme",
  displayName: "Acme",
  format: "openai",
  baseUrl: "http://127.0.0.1:9/v1",
  baseUrlEnv: ["ACME_BASE_URL"],
  apiKeyEnv: ["ACME_API_KEY"],
  modelPatterns: ["acme-*"],
  clientCredential: { format: "openai", headers: ["x-acme-key"], oauthPrefix: "acme-oat-" },
  request: (ctx) => ({ url: ctx.baseUrl + "/chat/completions", headers: { "content-type": "application/json", authorization: "Bearer " + ctx.apiKey } }),
});
`;
    beforeAll(async () => {
      vendor = await startFakeVendor("openai");
      relay = await startRelay({ env: { ACME_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: "relay-openai-key" } });
      mkdirSync(join(relay.home, "plugins"), { recursive: true });
      writeFileSync(join(relay.home, "plugins", "acme.ts"), ACME);
      await relay.relay.loadUserPlugins(1);
    });
    afterAll(async () => {
      await relay?.stop();
      await vendor?.close();
    });

    const ask = (model: string, headers: Record<string, string> = {}) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });

    test("the client's credential from the declared header is used for that provider", async () => {
      const before = vendor.requests.length;
      const res = await ask("acme-7b", { "x-acme-key": "client-acme-key" });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-svc-provider")).toBe("acme");
      await res.text();
      expect(vendor.requests.slice(before).map((r) => r.headers.authorization)).toEqual(["Bearer client-acme-key"]);
    });

    test("without it, and with no key of Relay's for the provider, the request is refused 401 in the client's shape", async () => {
      const before = vendor.requests.length;
      const res = await ask("acme-7b");
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { message: "Missing Acme authentication", code: "authentication_error" } });
      expect(vendor.requests.length).toBe(before);
    });

    test("the credential goes to no other provider; a plan-bound one stays with the model asked for", () => {
      const before = vendor.requests.length;
      // The key each call would use, read without calling OpenAI's real base URL.
      const deps = relay.relay as unknown as RouterDeps;
      const openai = deps.registry.providers.get("openai")!;
      const acme = deps.registry.providers.get("acme")!;
      const model = deps.catalog.resolve("gpt-4o-mini")!;
      expect(keyFor(deps, openai, model, "gpt-4o-mini", { owner: acme, key: "client-acme-key" })).toBe("relay-openai-key");
      // A plan-bound token (the declared prefix) is kept for the model asked for and, lacking a key of Relay's, for a rerouted one.
      const acmeModel = deps.catalog.resolve("acme-7b")!;
      expect(keyFor(deps, acme, acmeModel, "acme-7b", { owner: acme, key: "acme-oat-1" })).toBe("acme-oat-1");
      expect(keyFor(deps, acme, acmeModel, "svc:auto", { owner: acme, key: "acme-oat-1" })).toBe("acme-oat-1");
      expect(vendor.requests.length).toBe(before);
    });
  });
});
