// Models newer than the catalog (issue 36, item 2): provider patterns, the full price data, and what
// an unpriced model costs a budget; the vendor answers that mean "no such model".
import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { costOf } from "../../src/core/catalog/cost.ts";
import { PROVIDERS } from "../../src/core/catalog/overlay.ts";
import { pricedModelIds, topListedPrice } from "../../src/core/catalog/price-list.ts";
import { priceListing } from "../../src/core/catalog/prices.ts";
import { costUnknownEvent, standInFor } from "../../src/core/catalog/unpriced.ts";
import { codecFor } from "../../src/core/formats/index.ts";
import { isUnknownModelAnswer } from "../../src/core/limits/failure.ts";
import { builtinProviders } from "../../src/providers/index.ts";

const withPlugins = new Catalog({ providers: builtinProviders });
const bare = new Catalog();

describe("each built-in provider's naming routes names the catalog does not list", () => {
  test.each([
    ["claude-opus-9", "anthropic"],
    ["claude-sonet-4-5", "anthropic"],
    ["gpt-9", "openai"],
    ["o7-mini", "openai"],
    ["chatgpt-9o-latest", "openai"],
    ["gemini-9-ultra", "google"],
    ["grok-9", "xai"],
    ["deepseek-v9", "deepseek"],
    ["mistral-huge-latest", "mistral"],
    ["codestral-2099", "mistral"],
    ["open-mistral-nemo-2", "mistral"],
    ["sonar-ultra", "perplexity"],
  ])("%p → %s, sent as it is and unpriced", (name, provider) => {
    const m = withPlugins.resolve(name);
    expect(m).toMatchObject({ provider, id: name, routable: false });
    expect(m?.price).toBeUndefined();
  });

  test("names no vendor's naming claims stay unresolved; patterns are the plugins', not the core's", () => {
    for (const name of ["gemma-3-27b-it", "llama-9", "ollama", "omni-9", "my-gpt-9"]) expect(withPlugins.resolve(name)).toBeUndefined();
    expect(bare.resolve("claude-opus-9")).toBeUndefined();
  });

  test("a typo routed by its pattern still has its suggestion", () => {
    expect(withPlugins.suggest("claude-sonet-4-5")[0]).toBe("claude-sonnet-4-5");
  });
});

describe("the routable catalog comes from the full price data", () => {
  test.each([
    ["claude-opus-5-5", "anthropic"],
    ["gpt-5.5", "openai"],
    ["gemini-3.5-flash", "google"],
  ])("%p resolves with its listed price, with or without the plugins' patterns", (id, provider) => {
    const listed = priceListing(provider, id)?.price;
    expect(listed?.input).toBeGreaterThan(0);
    for (const catalog of [bare, withPlugins]) {
      const m = catalog.resolve(id);
      expect(m).toMatchObject({ provider, id, price: listed });
      expect(m?.contextWindow).toBeGreaterThan(0);
    }
  });

  test("the price data's own models are in the catalog; a vendor's resold models stay with their maker", () => {
    const listed = new Set(bare.list().map((m) => `${m.provider}:${m.id}`));
    for (const provider of ["anthropic", "openai", "google", "xai", "deepseek", "mistral"]) {
      const ids = pricedModelIds(provider);
      expect(ids.length).toBeGreaterThan(5);
      // Each id is listed, or stands for one that is (its undated or aliased spelling).
      for (const id of ids) expect(bare.resolve(`${provider}:${id}`)?.provider, id).toBe(provider);
    }
    // Vertex's Claude is in google's price list; claude ids are Anthropic's.
    expect([...listed].some((k) => k.startsWith("google:claude"))).toBe(false);
    expect(bare.resolve("claude-opus-5-5")?.provider).toBe("anthropic");
    // Match prefixes and reseller tags are not model names.
    expect(pricedModelIds("openai").some((id) => id.startsWith("ft:") || id.endsWith("-"))).toBe(false);
  });

  test("strategies keep to the overlay: price-data models are not routable, every routable model has a tier", () => {
    expect(bare.resolve("gpt-5.5")?.routable).toBe(false);
    const routable = bare.routableModels();
    expect(routable.length).toBeGreaterThan(0);
    expect(routable.every((m) => m.tier !== undefined && PROVIDERS.includes(m.provider as (typeof PROVIDERS)[number]))).toBe(true);
  });

  test("the default models are built once and shared frozen", () => {
    const a = new Catalog().resolve("claude-opus-5-5")!;
    expect(new Catalog().resolve("claude-opus-5-5")).toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(a.price)).toBe(true);
  });
});

describe("an unpriced model: served, cost unknown, budgets count it at its provider's top price", () => {
  const usage = { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 };

  test("a provider's top listed price is the highest input and output price of its own models", () => {
    const top = topListedPrice("anthropic")!;
    const prices = pricedModelIds("anthropic").map((id) => priceListing("anthropic", id)?.price?.output ?? 0);
    expect(top.output).toBeGreaterThanOrEqual(Math.max(...prices));
    expect(top.input).toBeGreaterThanOrEqual(priceListing("anthropic", "claude-opus-4-1")!.price!.input);
    expect(topListedPrice("ollama")).toBeUndefined();
  });

  test("the stand-in is the model at that price; priced and free models have none", () => {
    const unknown = withPlugins.resolve("claude-opus-9")!;
    const standIn = standInFor(unknown)!;
    expect(standIn).toMatchObject({ id: "claude-opus-9", provider: "anthropic", price: topListedPrice("anthropic") });
    expect(standInFor(unknown)).toBe(standIn);
    expect(costOf(unknown, usage)).toBe(0);
    const top = topListedPrice("anthropic")!;
    expect(costOf(standIn, usage)).toBeCloseTo((1_000 * top.input + 100 * top.output) / 1e6, 12);
    expect(standInFor(withPlugins.resolve("claude-haiku-4-5")!)).toBeUndefined();
    expect(standInFor(withPlugins.resolve("ollama:llama3.2")!)).toBeUndefined();
  });

  test("the run event says the cost is unknown, and how a budget counts it", () => {
    const unknown = withPlugins.resolve("grok-9")!;
    const top = topListedPrice("xai")!;
    expect(costUnknownEvent(unknown, false)).toEqual({ type: "cost_unknown", model: "grok-9", provider: "xai", reason: "no listed price: cost logged as unknown ($0)" });
    expect(costUnknownEvent(unknown, true)?.reason).toContain(`xai's highest listed price ($${top.input}/M input, $${top.output}/M output tokens)`);
    expect(costUnknownEvent(withPlugins.resolve("grok-4")!, true)).toBeUndefined();
    expect(costUnknownEvent(withPlugins.resolve("ollama:llama3.2")!, true)).toBeUndefined();
  });
});

describe("a vendor's answer that the model does not exist", () => {
  const decoded = (format: "anthropic" | "openai" | "gemini", status: number, body: unknown) => {
    const vendorError = codecFor(format).decodeError(status, body, new Headers());
    return { status, message: vendorError.message, vendorError };
  };
  const anthropic = { type: "error", error: { type: "not_found_error", message: "model: claude-opus-9" } };
  const openai = { error: { message: "The model `gpt-9` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } };
  const gemini = {
    error: { code: 404, message: "models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", status: "NOT_FOUND" },
  };

  test("Anthropic's not_found_error, OpenAI's model_not_found and Gemini's NOT_FOUND, each naming the model", () => {
    expect(isUnknownModelAnswer(decoded("anthropic", 404, anthropic), "claude-opus-9")).toBe(true);
    expect(isUnknownModelAnswer(decoded("openai", 404, openai), "gpt-9")).toBe(true);
    expect(isUnknownModelAnswer(decoded("gemini", 404, gemini), "gemini-9-ultra")).toBe(true);
    // OpenAI-compatible vendors name the model without OpenAI's code (xAI).
    const xai = { code: "Some requested entity was not found", error: "The model grok-9 does not exist or your team does not have access to it." };
    expect(isUnknownModelAnswer(decoded("openai", 404, xai), "grok-9")).toBe(true);
  });

  test("other 404s are not: a wrong base URL's bare page, another model's name, another status", () => {
    expect(isUnknownModelAnswer(decoded("openai", 404, "<html>404 Not Found: /v1/chat/completions gpt-9</html>"), "gpt-9")).toBe(false);
    expect(isUnknownModelAnswer(decoded("anthropic", 404, anthropic), "claude-opus-8")).toBe(false);
    expect(isUnknownModelAnswer(decoded("anthropic", 400, { type: "error", error: { type: "invalid_request_error", message: "model: claude-opus-9" } }), "claude-opus-9")).toBe(false);
  });
});
