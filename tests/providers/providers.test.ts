import { describe, expect, test } from "bun:test";
import { defaults } from "../../src/config/load.ts";
import { providerBaseUrl, providerKey } from "../../src/core/router/credentials.ts";
import anthropic from "../../src/providers/anthropic.ts";
import google from "../../src/providers/google.ts";
import { builtinProviders } from "../../src/providers/index.ts";
import ollama from "../../src/providers/ollama.ts";
import { presets } from "../../src/providers/openai-compatible.ts";

const ctx = (over: Partial<Parameters<typeof anthropic.request>[0]> = {}) => ({
  model: "m",
  stream: false,
  baseUrl: "https://vendor.test",
  apiKey: "key",
  clientHeaders: new Headers(),
  ...over,
});

describe("anthropic", () => {
  test("an API key travels in x-api-key with the default anthropic-version", () => {
    const { url, headers } = anthropic.request(ctx({ apiKey: "sk-ant-api03-abc" }));
    expect(url).toBe("https://vendor.test/v1/messages");
    expect(headers["x-api-key"]).toBe("sk-ant-api03-abc");
    expect(headers.authorization).toBeUndefined();
    expect(headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("an OAuth token travels as Bearer with the OAuth beta flag added to the client's betas", () => {
    const clientHeaders = new Headers({ "anthropic-beta": "prompt-caching-2024-07-31", "anthropic-version": "2023-06-01" });
    const { headers } = anthropic.request(ctx({ apiKey: "sk-ant-oat01-xyz", clientHeaders }));
    expect(headers.authorization).toBe("Bearer sk-ant-oat01-xyz");
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31,oauth-2025-04-20");
  });
});

describe("google", () => {
  test("the key goes in x-goog-api-key, never the URL; streams use alt=sse", () => {
    const r = google.request(ctx({ model: "gemini-2.5-flash", stream: true, apiKey: "g-secret" }));
    expect(r.url).toBe("https://vendor.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(r.url).not.toContain("g-secret");
    expect(r.headers["x-goog-api-key"]).toBe("g-secret");
  });
});

describe("base URLs and keys", () => {
  const config = defaults();

  test("OLLAMA_HOST given as host:port gets a scheme; trailing slashes are dropped", () => {
    expect(providerBaseUrl(ollama, config, { OLLAMA_HOST: "127.0.0.1:11500" })).toBe("http://127.0.0.1:11500");
    expect(providerBaseUrl(ollama, config, {})).toBe("http://localhost:11434");
    expect(providerBaseUrl(anthropic, config, { ANTHROPIC_BASE_URL: "https://proxy.test/" })).toBe("https://proxy.test");
  });

  test("each OpenAI-compatible preset has its vendor's documented base URL and key variable", () => {
    const byName = Object.fromEntries(presets.map((p) => [p.name, p]));
    expect(byName.groq!.baseUrl).toBe("https://api.groq.com/openai/v1");
    expect(byName.mistral!.baseUrl).toBe("https://api.mistral.ai/v1");
    expect(byName.deepseek!.baseUrl).toBe("https://api.deepseek.com");
    expect(byName.openrouter!.baseUrl).toBe("https://openrouter.ai/api/v1");
    expect(byName.together!.baseUrl).toBe("https://api.together.xyz/v1");
    expect(byName.fireworks!.baseUrl).toBe("https://api.fireworks.ai/inference/v1");
    expect(byName.perplexity!.baseUrl).toBe("https://api.perplexity.ai");
    expect(byName.xai!.baseUrl).toBe("https://api.x.ai/v1");
    for (const p of presets) expect(p.apiKeyEnv).toEqual([`${p.name.toUpperCase()}_API_KEY`]);
  });

  test("env keys win over config keys; Gemini also accepts GOOGLE_API_KEY", () => {
    const c = { ...config, providers: { google: { apiKey: "from-file" } } };
    expect(providerKey(google, c, {})).toBe("from-file");
    expect(providerKey(google, c, { GOOGLE_API_KEY: "g2" })).toBe("g2");
    expect(providerKey(google, c, { GEMINI_API_KEY: "g1", GOOGLE_API_KEY: "g2" })).toBe("g1");
  });

  test("presets rename max_completion_tokens for vendors that only know max_tokens", () => {
    const mistral = presets.find((p) => p.name === "mistral")!;
    expect(mistral.adaptBody!({ model: "m", max_completion_tokens: 50 }, ctx())).toEqual({ model: "m", max_tokens: 50 });
  });

  test("every built-in provider is a distinct plugin", () => {
    const names = builtinProviders.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["anthropic", "openai", "google", "xai", "ollama", "groq", "mistral", "deepseek", "openrouter", "together", "fireworks", "perplexity"]));
  });
});
