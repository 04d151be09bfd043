// The complexity strategy derives its candidate lists from the catalog once per
// catalog version. Through the router, with the real catalog, registry, config
// and cooldown: what changes between two requests must change the next plan.
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { ControlState } from "../../src/core/control.ts";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { CooldownTracker, DEFAULT_COOLDOWN_OPTIONS } from "../../src/core/limits/cooldown.ts";
import { HealthBoard } from "../../src/core/limits/health.ts";
import { createLogger } from "../../src/core/log.ts";
import type { RouterDeps } from "../../src/core/router/deps.ts";
import { planRoute } from "../../src/core/router/plan.ts";
import { definePlugin, type ModelInfo } from "../../src/plugin/api.ts";
import { Registry } from "../../src/plugin/registry.ts";
import { builtinProviders } from "../../src/providers/index.ts";
import { builtinStrategies } from "../../src/strategies/index.ts";
import { chat, model } from "./fakes.ts";

const VIRTUAL = ["svc:auto", "svc:fast", "svc:cheap", "svc:best"];
const BOTH_KEYS = { OPENAI_API_KEY: "x", ANTHROPIC_API_KEY: "x" };

const configOf = (file: object, env: Record<string, string>): Config =>
  loadConfig({ file: "test-config.json", fileText: JSON.stringify(file), env }).config;

/** The parts of a Relay that planRoute() reads, with a clock the test moves. */
function world(env: Record<string, string> = BOTH_KEYS, file: object = {}) {
  const clock = new ManualClock(0);
  const registry = new Registry();
  const cooldown = new CooldownTracker({}, clock);
  for (const p of builtinProviders) registry.register(p, "builtin");
  for (const s of builtinStrategies) registry.register(s, "builtin");
  const state = { config: configOf(file, env) };
  const deps = {
    config: () => state.config,
    env,
    log: createLogger("error", () => {}),
    registry,
    catalog: new Catalog(),
    cooldown,
    health: new HealthBoard([cooldown]),
    control: new ControlState(),
  };
  return { deps: deps as unknown as RouterDeps, clock, state };
}

async function candidates(deps: RouterDeps, requested: string): Promise<string[]> {
  const routing = await planRoute(deps, {
    request: chat("hi", { model: requested }),
    requestedModel: requested,
    clientFormat: "openai",
    headers: new Headers(),
  });
  return routing.candidates.map((m) => `${m.provider}:${m.id}`);
}

const plansOf = async (deps: RouterDeps): Promise<string[][]> => Promise.all(VIRTUAL.map((v) => candidates(deps, v)));
const without = (plans: string[][], provider: string): string[][] => plans.map((p) => p.filter((c) => !c.startsWith(`${provider}:`)));

describe("complexity plans through the router", () => {
  test("a cooled-down provider leaves the next plans and returns when its cooldown ends", async () => {
    const { deps, clock } = world();
    const before = await plansOf(deps);
    expect(before.every((p) => p.some((c) => c.startsWith("anthropic:")))).toBe(true);

    for (let i = 0; i < DEFAULT_COOLDOWN_OPTIONS.failureThreshold; i++) deps.cooldown.recordFailure("anthropic", "overloaded");
    expect(await plansOf(deps)).toEqual(without(before, "anthropic"));

    clock.advance(DEFAULT_COOLDOWN_OPTIONS.cooldownMs);
    expect(await plansOf(deps)).toEqual(before);
  });

  test("a key removed by a config reload drops that provider's models from the next plans", async () => {
    const env = { ANTHROPIC_API_KEY: "x" };
    const { deps, state } = world(env, { providers: { openai: { apiKey: "sk-test" } } });
    const before = await plansOf(deps);
    expect(before.some((p) => p.some((c) => c.startsWith("openai:")))).toBe(true);

    state.config = configOf({}, env);
    expect(await plansOf(deps)).toEqual(without(before, "openai"));
  });

  test("a model added to the catalog in place is offered by the next plans", async () => {
    const { deps } = world();
    const before = await plansOf(deps);
    const free = model({ id: "free-tiny", provider: "openai", tier: "simple", price: { input: 0, output: 0 } });
    deps.catalog.addProviderModels([free]);

    const [auto, fast, cheap] = await plansOf(deps);
    expect(auto).toEqual([...before[0], "openai:free-tiny"]);
    expect(fast).toEqual([...before[1], "openai:free-tiny"]);
    expect(cheap).toEqual(["openai:free-tiny", ...before[2]]);
  });

  test("a rebuilt catalog (config or plugin reload) is read afresh", async () => {
    const { deps } = world();
    const before = await plansOf(deps);
    expect(before[1]).toContain("openai:gpt-4o-mini");

    deps.catalog = new Catalog({ overrides: [{ provider: "openai", id: "gpt-4o-mini", routable: false }] });
    const after = await plansOf(deps);
    expect(after).toEqual(before.map((p) => p.filter((c) => c !== "openai:gpt-4o-mini")));
  });
});

describe("Catalog.routableModels", () => {
  test("is one frozen array until the catalog changes", () => {
    const catalog = new Catalog();
    const first = catalog.routableModels();
    expect(catalog.routableModels()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual(catalog.list().filter((m: ModelInfo) => m.routable));

    catalog.addProviderModels([model({ id: "added", provider: "openai" })]);
    expect(catalog.routableModels()).not.toBe(first);
    expect(catalog.routableModels().map((m) => m.id)).toContain("added");
  });
});

describe("strategy options through the router", () => {
  // Plugins memoise what they parse from their options per options object, so a strategy with
  // nothing in config must get one stable object, not a fresh one per request.
  test("a strategy without options sees the same object on every request, and another strategy its own", async () => {
    const { deps } = world();
    const seen: Record<string, Array<Record<string, unknown>>> = { "svc:probe-a": [], "svc:probe-b": [] };
    for (const virtual of Object.keys(seen)) {
      deps.registry.register(
        definePlugin({
          kind: "strategy",
          name: virtual.slice(4),
          models: [virtual],
          plan: (_input, ctx) => {
            seen[virtual]!.push(ctx.options);
            return { candidates: ["gpt-4o-mini"], mode: "fallback", reasons: [] };
          },
        }),
        "test",
      );
    }
    for (let i = 0; i < 3; i++) for (const virtual of Object.keys(seen)) expect(await candidates(deps, virtual)).toEqual(["openai:gpt-4o-mini"]);
    const [a, b] = [seen["svc:probe-a"]!, seen["svc:probe-b"]!];
    expect(a.length).toBe(3);
    expect(new Set(a).size).toBe(1);
    expect(new Set(b).size).toBe(1);
    expect(a[0]).not.toBe(b[0]);
    expect(a[0]).toEqual({});
  });
});
