import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { PROVIDERS } from "../../src/core/catalog/overlay.ts";
import type { ModelInfo } from "../../src/plugin/api.ts";

const catalog = new Catalog();

describe("resolve: name forms", () => {
  test.each([
    "claude-sonnet-4-5",
    "CLAUDE-Sonnet-4-5",
    "  claude-sonnet-4-5 ",
    "anthropic:claude-sonnet-4-5",
    "anthropic/claude-sonnet-4-5",
    "Anthropic:claude-sonnet-4-5",
    "sonnet",
    "SONNET",
    "anthropic:sonnet",
  ])("%p resolves to anthropic claude-sonnet-4-5", (name) => {
    const m = catalog.resolve(name);
    expect(m?.provider).toBe("anthropic");
    expect(m?.id).toBe("claude-sonnet-4-5");
  });

  test.each([
    ["haiku", "anthropic", "claude-haiku-4-5"],
    ["opus", "anthropic", "claude-opus-4-5"],
    ["gpt-4o", "openai", "gpt-4o"],
    ["4o", "openai", "gpt-4o"],
    ["4o-mini", "openai", "gpt-4o-mini"],
    ["gpt-5", "openai", "gpt-5"],
    ["gemini-flash", "google", "gemini-2.5-flash"],
    ["gemini-pro", "google", "gemini-2.5-pro"],
    ["grok", "xai", "grok-4"],
    ["xai:grok-4", "xai", "grok-4"],
    ["deepseek/deepseek-reasoner", "deepseek", "deepseek-reasoner"],
  ])("alias or id %p -> %s:%s", (name, provider, id) => {
    const m = catalog.resolve(name);
    expect(m?.provider).toBe(provider);
    expect(m?.id).toBe(id);
  });

  test("a dated snapshot resolves to its base entry but keeps the id to send", () => {
    const m = catalog.resolve("claude-sonnet-4-5-20250929");
    expect(m?.id).toBe("claude-sonnet-4-5-20250929");
    expect(m?.provider).toBe("anthropic");
    expect(m?.tier).toBe("moderate");
    expect(m?.routable).toBe(true);
    expect(catalog.resolve("anthropic:claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5-20250929");
    expect(catalog.resolve("gpt-4o-2024-08-06")?.id).toBe("gpt-4o-2024-08-06");
  });

  test("a dated snapshot is priced as the snapshot (gpt-4o-2024-05-13 was dearer)", () => {
    expect(catalog.resolve("gpt-4o")?.price).toMatchObject({ input: 2.5, output: 10 });
    expect(catalog.resolve("gpt-4o-2024-05-13")?.price).toMatchObject({ input: 5, output: 15 });
  });

  test("models.dev lists dated ids; their undated spelling resolves too", () => {
    expect(catalog.resolve("claude-sonnet-4")?.id).toBe("claude-sonnet-4-20250514");
    expect(catalog.resolve("claude-3-5-haiku-20241022")?.routable).toBe(false);
  });
});

describe("resolve: passthrough and unknown names", () => {
  test("an unlisted model of a known provider is synthesized", () => {
    const m = catalog.resolve("ollama:llama3.2");
    expect(m).toMatchObject({ id: "llama3.2", provider: "ollama", routable: false, aliases: [] });
    expect(m?.price).toBeUndefined();
    expect(m?.capabilities).toEqual({ tools: true, vision: true, json: true, reasoning: true, streaming: true });
  });

  test("the model part keeps its own separators and case", () => {
    expect(catalog.resolve("ollama:llama3.2:3b")).toMatchObject({ provider: "ollama", id: "llama3.2:3b" });
    expect(catalog.resolve("openrouter:meta-llama/llama-3.1-8b")).toMatchObject({
      provider: "openrouter",
      id: "meta-llama/llama-3.1-8b",
    });
    expect(catalog.resolve("together/meta-llama/Llama-3.3-70B-Instruct-Turbo")).toMatchObject({
      provider: "together",
      id: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    });
  });

  test("a passthrough model gets what the data packages know about it", () => {
    const m = catalog.resolve("openrouter:meta-llama/llama-3.1-8b-instruct");
    expect(m?.price?.input).toBeGreaterThan(0);
  });

  test("bare unknown names and unknown providers do not resolve", () => {
    expect(catalog.resolve("claude-sonet-4-5")).toBeUndefined();
    expect(catalog.resolve("llama3.2")).toBeUndefined();
    expect(catalog.resolve("nosuchvendor:model")).toBeUndefined();
    expect(catalog.resolve("")).toBeUndefined();
  });

  test("suggestions are the nearest known names", () => {
    expect(catalog.suggest("claude-sonet-4-5")[0]).toBe("claude-sonnet-4-5");
    expect(catalog.suggest("gpt-4o-mni")[0]).toBe("gpt-4o-mini");
    expect(catalog.suggest("sonet")).toContain("sonnet");
    expect(catalog.suggest("claude-sonet-4-5", 2)).toHaveLength(2);
  });

  test("nothing is suggested for a name far from every model", () => {
    expect(catalog.suggest("completely-unrelated-name-xyz")).toEqual([]);
  });
});

describe("contents", () => {
  test("the routable set spans the major vendors and every tier", () => {
    const routable = catalog.routableModels();
    const ids = routable.map((m) => `${m.provider}:${m.id}`);
    for (const expected of [
      "anthropic:claude-haiku-4-5",
      "anthropic:claude-sonnet-4-5",
      "anthropic:claude-opus-4-5",
      "openai:gpt-4o-mini",
      "openai:gpt-5",
      "openai:gpt-4.1",
      "google:gemini-2.5-flash-lite",
      "google:gemini-2.5-pro",
      "xai:grok-4",
      "deepseek:deepseek-chat",
      "deepseek:deepseek-reasoner",
    ])
      expect(ids).toContain(expected);
    expect(new Set(routable.map((m) => m.tier))).toEqual(new Set(["simple", "moderate", "complex"]));
    expect(routable.every((m) => m.routable)).toBe(true);
  });

  test("every routable model has a price, a context window and a provider plugin name", () => {
    for (const m of catalog.routableModels()) {
      expect(m.price, m.id).toBeDefined();
      expect(m.contextWindow, m.id).toBeGreaterThan(0);
      expect(PROVIDERS as readonly string[]).toContain(m.provider);
    }
  });

  test("numbers come from the data packages", () => {
    expect(catalog.resolve("claude-sonnet-4-5")?.price).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(catalog.resolve("claude-sonnet-4-5")?.contextWindow).toBe(200_000);
    expect(catalog.resolve("gpt-4o")).toMatchObject({ contextWindow: 128_000, maxOutput: 16_384 });
    expect(catalog.resolve("gpt-4o")?.capabilities).toMatchObject({ tools: true, vision: true, reasoning: false });
    expect(catalog.resolve("deepseek-chat")?.capabilities.vision).toBe(false);
    expect(catalog.resolve("gpt-5")?.capabilities.reasoning).toBe(true);
  });

  test("list() holds non-routable models as well as routable ones", () => {
    const all = catalog.list();
    expect(all.length).toBeGreaterThan(catalog.routableModels().length);
    expect(all.some((m) => m.id === "o3" && !m.routable)).toBe(true);
  });
});

describe("overrides", () => {
  test("an override changes price, tier and routability of a known model", () => {
    const c = new Catalog({
      overrides: [
        { provider: "openai", id: "gpt-4o", price: { input: 1, output: 2 }, tier: "complex" },
        { provider: "openai", id: "gpt-4o-mini", routable: false },
      ],
    });
    expect(c.resolve("gpt-4o")).toMatchObject({ price: { input: 1, output: 2 }, tier: "complex", contextWindow: 128_000 });
    expect(c.resolve("gpt-4o-2024-08-06")?.price).toEqual({ input: 1, output: 2 });
    expect(c.routableModels().map((m) => m.id)).not.toContain("gpt-4o-mini");
    expect(catalog.routableModels().map((m) => m.id)).toContain("gpt-4o-mini");
  });

  test("an override adds a model of its own", () => {
    const c = new Catalog({
      overrides: [{ provider: "ollama", id: "my-finetune", aliases: ["mine"], routable: true, tier: "simple", contextWindow: 8192 }],
    });
    expect(c.resolve("mine")).toMatchObject({ provider: "ollama", id: "my-finetune", routable: true, contextWindow: 8192 });
    expect(c.resolve("my-finetune")?.id).toBe("my-finetune");
    expect(c.routableModels().map((m) => m.id)).toContain("my-finetune");
  });

  test("an alias named by an override moves to that model", () => {
    const c = new Catalog({ overrides: [{ provider: "anthropic", id: "claude-opus-4-5", aliases: ["sonnet"] }] });
    expect(c.resolve("sonnet")?.id).toBe("claude-opus-4-5");
    expect(c.resolve("claude-sonnet-4-5")?.aliases).not.toContain("sonnet");
  });

  test("capabilities can be overridden one flag at a time", () => {
    const partial = { vision: false } as ModelInfo["capabilities"];
    const c = new Catalog({ overrides: [{ provider: "openai", id: "gpt-4o", capabilities: partial }] });
    expect(c.resolve("gpt-4o")?.capabilities).toMatchObject({ vision: false, tools: true });
  });
});

describe("provider contributions", () => {
  const local: ModelInfo = {
    id: "qwen2.5-coder:7b",
    provider: "lmstudio",
    aliases: ["qwen-local"],
    capabilities: { tools: true, vision: false, json: true, reasoning: false, streaming: true },
    routable: true,
    tier: "simple",
  };

  test("contributed models resolve and make their provider known for passthrough", () => {
    const c = new Catalog();
    expect(c.resolve("lmstudio:anything")).toBeUndefined();
    c.addProviderModels([local]);
    expect(c.resolve("qwen-local")?.id).toBe("qwen2.5-coder:7b");
    expect(c.resolve("lmstudio:anything")).toMatchObject({ provider: "lmstudio", id: "anything" });
    expect(c.routableModels()).toContainEqual(local);
  });

  test("a contributed model the catalog already knows keeps the catalog entry", () => {
    const c = new Catalog();
    c.addProviderModels([{ ...local, provider: "openai", id: "gpt-4o", aliases: [], routable: false }]);
    expect(c.resolve("gpt-4o")?.routable).toBe(true);
  });

  test("overrides still win over contributed models", () => {
    const c = new Catalog({ overrides: [{ provider: "lmstudio", id: "qwen2.5-coder:7b", routable: false }] });
    c.addProviderModels([local]);
    expect(c.resolve("qwen-local")?.routable).toBe(false);
  });
});
