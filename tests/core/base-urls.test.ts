// Base URLs in each vendor's documented form, with or without its version segment
// (ProviderPlugin.versionPath), reach the same request URL: through the env variable,
// RELAY_<PROVIDER>_BASE_URL or the config file, for built-in and user providers alike.
// End to end, Relay reaches fake vendors given the other form than the tests' usual one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { loadConfig } from "../../src/config/load.ts";
import { baseUrlSource, providerBaseUrl, relayBaseUrlEnv } from "../../src/core/router/credentials.ts";
import { reachesListener, selfPointing } from "../../src/core/router/loop-guard.ts";
import { definePlugin, type ProviderPlugin } from "../../src/plugin/api.ts";
import { builtinProviders } from "../../src/providers/index.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

const config = (file: object = {}) => loadConfig({ file: "test-config.json", fileText: JSON.stringify(file), env: {} }).config;
const provider = (name: string) => builtinProviders.find((p) => p.name === name)!;

/** The URL of a chat call to `model`, with the base URL resolved from this env and config. */
function chatUrl(p: ProviderPlugin, env: Record<string, string>, file: object = {}): string {
  const baseUrl = providerBaseUrl(p, config(file), env);
  return p.request({ model: "m", stream: false, baseUrl, clientHeaders: new Headers() }).url;
}

/**
 * Each provider's documented forms (first the plugin's default), and the chat URL they must all reach;
 * `asGiven`: the vendor serves both forms, so each is called as it is.
 */
const FORMS: Record<string, { forms: string[]; url: string; asGiven?: boolean }> = {
  openai: { forms: ["https://api.openai.com/v1", "https://api.openai.com", "https://api.openai.com/"], url: "https://api.openai.com/v1/chat/completions" },
  anthropic: { forms: ["https://api.anthropic.com", "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/"], url: "https://api.anthropic.com/v1/messages" },
  google: {
    forms: ["https://generativelanguage.googleapis.com", "https://generativelanguage.googleapis.com/v1beta"],
    url: "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
  },
  ollama: { forms: ["http://localhost:11434", "http://localhost:11434/api", "localhost:11434", "localhost:11434/api/"], url: "http://localhost:11434/api/chat" },
  xai: { forms: ["https://api.x.ai/v1", "https://api.x.ai"], url: "https://api.x.ai/v1/chat/completions" },
  groq: { forms: ["https://api.groq.com/openai/v1", "https://api.groq.com/openai"], url: "https://api.groq.com/openai/v1/chat/completions" },
  mistral: { forms: ["https://api.mistral.ai/v1", "https://api.mistral.ai"], url: "https://api.mistral.ai/v1/chat/completions" },
  deepseek: { forms: ["https://api.deepseek.com", "https://api.deepseek.com/v1"], url: "https://api.deepseek.com/chat/completions", asGiven: true },
  openrouter: { forms: ["https://openrouter.ai/api/v1", "https://openrouter.ai/api"], url: "https://openrouter.ai/api/v1/chat/completions" },
  together: { forms: ["https://api.together.xyz/v1", "https://api.together.xyz"], url: "https://api.together.xyz/v1/chat/completions" },
  fireworks: { forms: ["https://api.fireworks.ai/inference/v1", "https://api.fireworks.ai/inference"], url: "https://api.fireworks.ai/inference/v1/chat/completions" },
  perplexity: { forms: ["https://api.perplexity.ai", "https://api.perplexity.ai/v1"], url: "https://api.perplexity.ai/chat/completions" },
};

describe("each documented form reaches the same request URL", () => {
  test("every built-in provider is covered, its default first", () => {
    expect(Object.keys(FORMS).sort()).toEqual(builtinProviders.map((p) => p.name).sort());
    for (const p of builtinProviders) expect({ name: p.name, default: p.baseUrl }).toEqual({ name: p.name, default: FORMS[p.name]!.forms[0]! });
  });

  for (const [name, { forms, url: sameUrl, asGiven }] of Object.entries(FORMS)) {
    test(name, () => {
      const p = provider(name);
      expect(chatUrl(p, {})).toBe(sameUrl);
      for (const form of forms) {
        const url = asGiven ? `${form}/chat/completions` : sameUrl;
        for (const variable of [relayBaseUrlEnv(p), ...(p.baseUrlEnv ?? [])]) expect({ form, variable, url: chatUrl(p, { [variable]: form }) }).toEqual({ form, variable, url });
        expect({ form, url: chatUrl(p, {}, { providers: { [name]: { baseUrl: form.includes("://") ? form : `http://${form}` } } }) }).toEqual({ form, url });
      }
    });
  }

  test("a proxy or gateway path other than the vendor's is kept as given", () => {
    const gateway = "https://gateway.example/v1/acct/gw/openai";
    expect(chatUrl(provider("openai"), { OPENAI_BASE_URL: gateway })).toBe(`${gateway}/chat/completions`);
    expect(chatUrl(provider("openai"), { OPENAI_BASE_URL: "http://127.0.0.1:8000/v1" })).toBe("http://127.0.0.1:8000/v1/chat/completions");
    expect(chatUrl(provider("openai"), { OPENAI_BASE_URL: "http://127.0.0.1:8000" })).toBe("http://127.0.0.1:8000/v1/chat/completions");
    expect(chatUrl(provider("anthropic"), { ANTHROPIC_BASE_URL: "https://gateway.example/anthropic" })).toBe("https://gateway.example/anthropic/v1/messages");
    expect(chatUrl(provider("anthropic"), { ANTHROPIC_BASE_URL: "https://gateway.example/anthropic/v1" })).toBe("https://gateway.example/anthropic/v1/messages");
    // A host that happens to be named like the segment is not a path.
    expect(chatUrl(provider("anthropic"), { ANTHROPIC_BASE_URL: "http://v1" })).toBe("http://v1/v1/messages");
    // A query string leaves the URL alone: Relay cannot tell where its path would go.
    expect(providerBaseUrl(provider("openai"), config(), { OPENAI_BASE_URL: "https://proxy.example?tenant=a" })).toBe("https://proxy.example?tenant=a");
  });

  test("the source is reported with the normal form; credentials in the URL survive it", () => {
    const anthropic = provider("anthropic");
    expect(baseUrlSource(anthropic, config(), { ANTHROPIC_BASE_URL: "https://api.anthropic.com/v1" })).toEqual({ url: "https://api.anthropic.com", from: "ANTHROPIC_BASE_URL" });
    expect(providerBaseUrl(provider("openai"), config(), { OPENAI_BASE_URL: "http://u:pw@proxy.example" })).toBe("http://u:pw@proxy.example/v1");
  });

  test("a user provider that states its version segment gets the same", () => {
    const acme = definePlugin({
      kind: "provider",
      name: "acme",
      format: "openai",
      baseUrl: "https://api.acme.example/llm/v2",
      baseUrlEnv: ["ACME_BASE_URL"],
      versionPath: "/v2",
      request: (ctx) => ({ url: `${ctx.baseUrl}/chat/completions`, headers: {} }),
    });
    for (const form of ["https://api.acme.example/llm/v2", "https://api.acme.example/llm", "http://127.0.0.1:9999"])
      expect(chatUrl(acme, { ACME_BASE_URL: form })).toBe(`${form}${form.endsWith("/v2") ? "" : "/v2"}/chat/completions`);
    // Without a declaration the URL is used as given.
    const plain = definePlugin({ ...acme, name: "plain", versionPath: undefined });
    expect(chatUrl(plain, { ACME_BASE_URL: "https://api.acme.example/llm" })).toBe("https://api.acme.example/llm/chat/completions");
  });

  test("a versionPath that is not a path segment fails the load, naming it", () => {
    const declare = (versionPath: unknown) => () =>
      definePlugin({ kind: "provider", name: "bad", format: "openai", baseUrl: "http://x", versionPath: versionPath as string, request: () => ({ url: "", headers: {} }) });
    for (const bad of ["v1", "/v1/", "/", "/v1?x", 1]) expect(declare(bad)).toThrow('provider "bad": versionPath must be a path segment');
    expect(declare("/openai/v1")).not.toThrow();
  });
});

describe("loop detection sees through either form", () => {
  const listen = { host: "127.0.0.1", port: 4100 };

  test("a base URL pointing at Relay is found with or without the segment", () => {
    for (const [name, form] of [
      ["ANTHROPIC_BASE_URL", "http://127.0.0.1:4100/v1"],
      ["OPENAI_BASE_URL", "http://localhost:4100"],
      ["GROQ_BASE_URL", "http://127.0.0.1:4100/openai"],
      ["OLLAMA_HOST", "127.0.0.1:4100/api"],
    ] as const) {
      const found = selfPointing(builtinProviders, config(), { [name]: form }, listen);
      expect(found.map((f) => f.message.split(" ")[0])).toEqual([name]);
      expect(found[0]!.message).toContain("points back at this Relay (http://");
    }
    expect(reachesListener(providerBaseUrl(provider("openai"), config(), { OPENAI_BASE_URL: "http://localhost:4100" }), listen)).toBe(true);
  });
});

describe("end to end: the forms the tests do not usually use", () => {
  let openaiFake: FakeVendor;
  let anthropicFake: FakeVendor;
  let relay: TestRelay;
  beforeAll(async () => {
    [openaiFake, anthropicFake] = await Promise.all([startFakeVendor("openai"), startFakeVendor("anthropic")]);
    // OpenAI without /v1 (the host alone), Anthropic with it: the other way round from every other test.
    relay = await startRelay({
      env: { OPENAI_BASE_URL: openaiFake.url, OPENAI_API_KEY: "sk-base-url-test", RELAY_ANTHROPIC_BASE_URL: `${anthropicFake.url}/v1/`, ANTHROPIC_API_KEY: "sk-ant-base-url" },
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await Promise.all([openaiFake?.close(), anthropicFake?.close()]);
  });

  test("OPENAI_BASE_URL without /v1: the OpenAI SDK's call reaches the vendor's /v1/chat/completions", async () => {
    const client = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(answer.choices[0]!.message.content).toBe("Hello from fake openai");
    expect(openaiFake.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
  });

  test("RELAY_ANTHROPIC_BASE_URL with /v1/: the Anthropic SDK's call reaches the vendor's /v1/messages", async () => {
    const client = new Anthropic({ baseURL: relay.url, apiKey: "sk-ant-base-url", maxRetries: 0 });
    const answer = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(answer.content[0]).toMatchObject({ type: "text", text: "Hello from fake anthropic" });
    expect(anthropicFake.requests.map((r) => r.path)).toEqual(["/v1/messages"]);
  });
});
