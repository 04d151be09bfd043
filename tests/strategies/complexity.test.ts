import { describe, expect, test } from "bun:test";
import complexity from "../../src/strategies/complexity/index.ts";
import { strategyOptionsProblem } from "../../src/plugin/options.ts";
import { CATALOG, chat, fakeContext, model, routeInput } from "./fakes.ts";

const WEATHER_TOOL = { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
const withImage = () => {
  const req = chat("What breed is this dog?");
  req.messages[0].content.push({ type: "image", source: { kind: "url", url: "https://example.com/dog.jpg" } });
  return req;
};

const plan = (requested: string, req = chat("hi"), ...ctx: Parameters<typeof fakeContext>) =>
  complexity.plan(routeInput(requested, req), fakeContext(...ctx));

describe("complexity plugin", () => {
  test("declares the four virtual models", () => {
    expect(complexity.kind).toBe("strategy");
    expect(complexity.models).toEqual(["svc:auto", "svc:fast", "svc:cheap", "svc:best"]);
  });

  test("svc:auto sends a greeting to the simple tier, then the next tier up, then same-tier hints", async () => {
    const result = await plan("svc:auto", chat("hello!"), CATALOG);
    expect(result.mode).toBe("fallback");
    expect(result.tier).toBe("simple");
    expect(result.candidates.slice(0, 2)).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5"]);
    expect(result.candidates).toContain("openai:gpt-5-nano");
    expect(result.candidates).not.toContain("openai:gpt-5");
    expect(result.reasons[0]).toMatch(/^simple tier \(score -?\d+\.\d\d\)$/);
  });

  test("svc:auto sends a proof to the complex tier", async () => {
    const result = await plan("svc:auto", chat("Prove that the square root of 2 is irrational."), CATALOG);
    expect(result.tier).toBe("complex");
    expect(result.candidates[0]).toBe("anthropic:claude-opus-4-5");
    expect(result.reasons.some((r) => r.startsWith("proof cues"))).toBe(true);
  });

  test("configured tier models and thresholds are used", async () => {
    const options = { tiers: { simple: "gpt-5-nano", moderate: "gpt-5-mini", complex: "gpt-5" }, thresholds: { moderate: -10, complex: -5 } };
    const result = await plan("svc:auto", chat("hello!"), CATALOG, options);
    expect(result.tier).toBe("complex");
    expect(result.candidates[0]).toBe("openai:gpt-5");
  });

  test("unavailable providers are skipped", async () => {
    const result = await plan("svc:fast", chat("hi"), CATALOG, {}, ["anthropic"]);
    expect(result.candidates.every((c) => !c.startsWith("anthropic:"))).toBe(true);
    expect(result.candidates[0]).toBe("openai:gpt-5-nano");
  });

  test("svc:fast and svc:best pin their tiers", async () => {
    const fast = await plan("svc:fast", chat("Prove Fermat's last theorem."), CATALOG);
    const best = await plan("svc:best", chat("hi"), CATALOG);
    expect(fast.tier).toBe("simple");
    expect(fast.candidates[0]).toBe("anthropic:claude-haiku-4-5");
    expect(best.tier).toBe("complex");
    expect(best.candidates).toEqual(["anthropic:claude-opus-4-5", "openai:gpt-5"]);
  });

  test("models lacking a needed capability are never picked", async () => {
    const noTools = [
      model({ id: "claude-haiku-4-5", provider: "anthropic", tier: "simple", capabilities: { tools: false } }),
      ...CATALOG.slice(1),
    ];
    const result = await plan("svc:fast", chat("weather in Oslo?", { tools: [WEATHER_TOOL] }), noTools);
    expect(result.candidates).not.toContain("anthropic:claude-haiku-4-5");
    expect(result.candidates).not.toContain("acme:text-only-cheap");
    expect(result.candidates).not.toContain("ollama:gemma-tiny");
    expect(result.reasons).toContain("needs: tools");
  });

  test("svc:cheap picks the cheapest routable model, ignoring non-routable ones", async () => {
    const result = await plan("svc:cheap", chat("hi"), CATALOG);
    expect(result.candidates[0]).toBe("acme:text-only-cheap");
    expect(result.candidates).not.toContain("acme:internal-embedder");
    // A model without a known price is ranked last.
    expect(result.candidates.at(-1)).toBe("ollama:gemma-tiny");
  });

  test("svc:cheap picks the cheapest model that covers tools, vision or json", async () => {
    const tools = await plan("svc:cheap", chat("weather?", { tools: [WEATHER_TOOL] }), CATALOG);
    expect(tools.candidates[0]).toBe("openai:gpt-5-nano");
    const vision = await plan("svc:cheap", withImage(), CATALOG);
    expect(vision.candidates[0]).toBe("openai:gpt-5-nano");
    expect(vision.reasons).toContain("needs: vision");
    const json = await plan("svc:cheap", chat("list 3 colours", { responseFormat: { type: "json" } }), CATALOG);
    expect(json.candidates).not.toContain("ollama:gemma-tiny");
  });

  test("availability is read on every plan: a provider going down and coming back changes the candidates", async () => {
    const down: string[] = [];
    const ctx = fakeContext(CATALOG, {}, down);
    const candidates = async (requested: string) => (await complexity.plan(routeInput(requested, chat("hi")), ctx)).candidates;
    // Unconfigured tiers: each provider's simple model then its moderate one (its ladder), then other simple-tier models.
    const fast = ["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5", "openai:gpt-5-nano", "openai:gpt-5-mini", "ollama:gemma-tiny", "acme:text-only-cheap"];
    const cheap = [
      "acme:text-only-cheap",
      "openai:gpt-5-nano",
      "openai:gpt-5-mini",
      "anthropic:claude-haiku-4-5",
      "openai:gpt-5",
      "anthropic:claude-sonnet-4-5",
      "anthropic:claude-opus-4-5",
      "ollama:gemma-tiny",
    ];
    expect(await candidates("svc:fast")).toEqual(fast);
    expect(await candidates("svc:cheap")).toEqual(cheap);

    down.push("anthropic");
    expect(await candidates("svc:fast")).toEqual(["openai:gpt-5-nano", "openai:gpt-5-mini", "ollama:gemma-tiny", "acme:text-only-cheap"]);
    expect(await candidates("svc:cheap")).toEqual(cheap.filter((c) => !c.startsWith("anthropic:")));

    down.length = 0;
    expect(await candidates("svc:fast")).toEqual(fast);
    expect(await candidates("svc:cheap")).toEqual(cheap);
  });

  test("options are read per options object: a replaced config takes effect", async () => {
    const first = await plan("svc:fast", chat("hi"), CATALOG, { tiers: { simple: "gpt-5-nano" } });
    const second = await plan("svc:fast", chat("hi"), CATALOG, { tiers: { simple: "claude-opus-4-5" } });
    expect(first.candidates[0]).toBe("openai:gpt-5-nano");
    expect(second.candidates[0]).toBe("anthropic:claude-opus-4-5");
  });

  // Checked when options come into force (start, reload, /control/config), not per request: tests/plugins/options.test.ts.
  test("invalid options fail with a message naming the option", () => {
    expect(strategyOptionsProblem(complexity, { tiers: { simple: 3 } })?.path).toBe("routing.strategies.complexity.tiers.simple");
    expect(strategyOptionsProblem(complexity, { thresholds: { moderate: 5, complex: 1 } })?.message).toContain("thresholds");
    // The rule the schema cannot express holds against the defaults too (complex defaults to 3.5).
    expect(strategyOptionsProblem(complexity, { thresholds: { moderate: 5 } })?.message).toBe("thresholds.moderate (5) must not exceed thresholds.complex (3.5)");
    expect(strategyOptionsProblem(complexity, { thresholds: { moderate: 2 } })).toBeUndefined();
  });
});
