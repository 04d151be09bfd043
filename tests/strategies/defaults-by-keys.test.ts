// The built-in strategies' defaults follow the providers that have keys (src/strategies/ladders.ts):
// read through ctx.isAvailable and ctx.catalog only, while configured tiers and chains stay as configured.
import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import cascade from "../../src/strategies/cascade/index.ts";
import complexity from "../../src/strategies/complexity/index.ts";
import { defaultLadders } from "../../src/strategies/ladders.ts";
import type { ModelInfo, StrategyContext } from "../../src/plugin/api.ts";
import { CATALOG, chat, fakeCatalog, fakeContext, model, routeInput } from "./fakes.ts";

/** A context in which only `keyed` providers can be called, as Relay's isAvailable says for missing keys. */
function keyed(providers: string[], options: Record<string, unknown> = {}, models: ModelInfo[] = CATALOG): StrategyContext {
  return { ...fakeContext(models, options), isAvailable: (m) => providers.includes(m.provider) };
}

const PROOF = chat("Prove that the square root of 2 is irrational.");
const withImage = () => {
  const req = chat("What is in this picture?");
  req.messages[0].content.push({ type: "image", source: { kind: "url", url: "https://example.com/a.png" } });
  return req;
};

describe("per-provider ladders", () => {
  test("each provider climbs from its simple to its complex tier model, in catalog order", () => {
    const ladders = defaultLadders(fakeCatalog(CATALOG)).map((l) => [l.provider, l.models.map((m) => m.id)]);
    expect(ladders).toEqual([
      ["anthropic", ["claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"]],
      ["openai", ["gpt-5-nano", "gpt-5-mini", "gpt-5"]],
      ["ollama", ["gemma-tiny"]],
      ["acme", ["text-only-cheap"]],
    ]);
  });

  test("the built-in catalog's ladders are the README's table", () => {
    const table = defaultLadders(new Catalog()).map((l) => [l.provider, l.byTier.simple?.id, l.byTier.moderate?.id, l.byTier.complex?.id]);
    expect(table).toEqual([
      ["anthropic", "claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"],
      ["openai", "gpt-5-nano", "gpt-5-mini", "gpt-5"],
      ["google", "gemini-2.5-flash-lite", "gemini-2.5-flash", "gemini-2.5-pro"],
      ["xai", "grok-4-fast-non-reasoning", "grok-4-fast-reasoning", "grok-4"],
      ["deepseek", undefined, "deepseek-chat", "deepseek-reasoner"],
      ["groq", "llama-3.1-8b-instant", "llama-3.3-70b-versatile", undefined],
      ["mistral", "mistral-small-latest", "mistral-medium-latest", "mistral-large-latest"],
    ]);
  });

  test("one ladder per catalog: built once, rebuilt when the routable array is replaced", () => {
    const catalog = fakeCatalog(CATALOG);
    expect(defaultLadders(catalog)).toBe(defaultLadders(catalog));
    expect(defaultLadders(fakeCatalog(CATALOG))).not.toBe(defaultLadders(catalog));
  });
});

describe("svc:cascade's default chain", () => {
  const plan = (ctx: StrategyContext, req = chat("What is the answer?")) => cascade.plan(routeInput("svc:cascade", req), ctx);

  test("only an OpenAI key: the chain escalates within OpenAI's models", async () => {
    const result = await plan(keyed(["openai"]));
    expect(result).toMatchObject({ mode: "cascade", maxEscalations: 2, candidates: ["openai:gpt-5-nano", "openai:gpt-5-mini", "openai:gpt-5"] });
    expect(result.reasons[0]).toBe("cascade over the default openai chain (3 of 3 models)");
  });

  test("several keys: the first provider's chain alone, so escalation never steps down to another vendor's cheap model", async () => {
    const result = await plan(keyed(["openai", "anthropic"]));
    expect(result.candidates).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-5"]);
  });

  test("a provider cooling down hands the chain to the next one (ctx.health through ctx.isAvailable)", async () => {
    const result = await plan(fakeContext(CATALOG, {}, ["anthropic"]));
    expect(result.candidates).toEqual(["openai:gpt-5-nano", "openai:gpt-5-mini", "openai:gpt-5"]);
  });

  test("the chain keeps only models that can serve the request", async () => {
    const blindNano = CATALOG.map((m) => (m.id === "gpt-5-nano" ? model({ ...m, capabilities: { vision: false } }) : m));
    const result = await plan(keyed(["openai"], {}, blindNano), withImage());
    expect(result.candidates).toEqual(["openai:gpt-5-mini", "openai:gpt-5"]);
    expect(result.reasons).toEqual(["cascade over the default openai chain (2 of 3 models)", "needs: vision"]);
  });

  test("the ladders come from the catalog: a keyless local provider's tier models form a chain", async () => {
    const local = [model({ id: "qwen-small", provider: "ollama", tier: "simple" }), model({ id: "qwen-large", provider: "ollama", tier: "complex" })];
    const result = await plan(keyed(["ollama"], {}, [...CATALOG.filter((m) => m.provider !== "ollama"), ...local]));
    expect(result.candidates).toEqual(["ollama:qwen-small", "ollama:qwen-large"]);
  });

  test("no provider available: no candidates, and the reason says why", async () => {
    const result = await plan(keyed([]));
    expect(result.candidates).toEqual([]);
    expect(result.reasons[0]).toBe("default chain: no provider with a key and out of cooldown has a capable model");
  });

  test("a configured chain is kept as configured, not replaced by the keyed provider's", async () => {
    const options = { chain: ["claude-haiku-4-5", "claude-opus-4-5"] };
    expect((await plan(keyed(["openai"], options))).candidates).toEqual([]);
    expect((await plan(keyed(["openai", "anthropic"], options))).candidates).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-opus-4-5"]);
  });
});

describe("complexity's default tiers", () => {
  const plan = (requested: string, ctx: StrategyContext, req = chat("hi")) => complexity.plan(routeInput(requested, req), ctx);

  test("only an OpenAI key: each tier starts at OpenAI's model for it, then its next tier up", async () => {
    const ctx = keyed(["openai"]);
    expect((await plan("svc:auto", ctx)).candidates).toEqual(["openai:gpt-5-nano", "openai:gpt-5-mini"]);
    const proof = await plan("svc:auto", ctx, PROOF);
    expect(proof.tier).toBe("complex");
    expect(proof.candidates).toEqual(["openai:gpt-5"]);
    expect((await plan("svc:best", ctx)).candidates).toEqual(["openai:gpt-5"]);
  });

  test("with several keys the first provider's models lead, the others follow as fallbacks", async () => {
    const fast = await plan("svc:fast", keyed(["openai", "anthropic"]));
    expect(fast.candidates).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5", "openai:gpt-5-nano", "openai:gpt-5-mini"]);
  });

  test("configured tiers are kept as configured; an unconfigured one still follows the keys", async () => {
    const options = { tiers: { complex: "gpt-5" } };
    // The configured complex model leads even where another provider comes first by default.
    expect((await plan("svc:best", keyed(["anthropic", "openai"], options))).candidates).toEqual(["openai:gpt-5", "anthropic:claude-opus-4-5"]);
    // Without its key, the tier's other models (as before: same-tier hints) serve instead.
    expect((await plan("svc:best", keyed(["anthropic"], options))).candidates).toEqual(["anthropic:claude-opus-4-5"]);
    // simple is not configured: the keyed providers' simple models, each with its moderate one.
    expect((await plan("svc:fast", keyed(["openai"], options))).candidates).toEqual(["openai:gpt-5-nano", "openai:gpt-5-mini"]);
    // moderate is not configured, complex is: every keyed provider's moderate model, then the configured complex one.
    const moderate = await plan("svc:auto", keyed(["anthropic", "openai"], { ...options, thresholds: { moderate: -10, complex: 10 } }));
    expect(moderate.tier).toBe("moderate");
    expect(moderate.candidates).toEqual(["anthropic:claude-sonnet-4-5", "openai:gpt-5-mini", "openai:gpt-5"]);
  });
});
