// GET /v1/models lists the models a request could be served by (every model the catalog knows, the
// price data's newest included): those whose provider has a key,
// Relay's own or the one the request carries (spec §5.3); `?all=true` adds the rest. And the
// default cascade chain and tiers follow the keys: with only OPENAI_API_KEY, svc:cascade works.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { needsKey } from "../../src/core/router/credentials.ts";
import { anthropicClient, chatBody, errorOf, getJson, openaiClient, post, startWorld, type World } from "./world.ts";

const VIRTUAL = ["svc:auto", "svc:fast", "svc:cheap", "svc:best", "svc:cascade"];
const HEDGE = "I'm not sure, I cannot determine that.";

let openaiOnly: World;
let both: World;
beforeAll(async () => {
  [openaiOnly, both] = await Promise.all([startWorld({ withoutKeys: ["ANTHROPIC_API_KEY"] }), startWorld()]);
});
afterAll(() => Promise.all([openaiOnly.stop(), both.stop()]));
beforeEach(() => {
  for (const w of [openaiOnly, both]) {
    w.openai.reset();
    w.anthropic.reset();
  }
});

/** The catalog's models of these providers and of those needing no key, in catalog order (the price data's newest included). */
function knownOf(w: World, providers: string[]): string[] {
  const { registry, catalog } = w.relay.relay;
  const keyless = [...registry.providers.values()].filter((p) => !needsKey(p)).map((p) => p.name);
  return catalog.list().filter((m) => providers.includes(m.provider) || keyless.includes(m.provider)).map((m) => m.id);
}

const concrete = (ids: string[]) => ids.filter((id) => !id.startsWith("svc:"));

describe("the OpenAI-shaped list (openai SDK)", () => {
  test("only OPENAI_API_KEY: the virtual models and OpenAI's models, none of a provider without a key", async () => {
    const page = await openaiClient(openaiOnly.url).models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids.slice(0, VIRTUAL.length).sort()).toEqual([...VIRTUAL].sort());
    expect(concrete(ids)).toEqual(knownOf(openaiOnly, ["openai"]));
    // The routable tiers' models and the price data's newest.
    expect(ids).toEqual(expect.arrayContaining(["gpt-5-nano", "gpt-5-mini", "gpt-5", "gpt-4o-mini", "gpt-5.5"]));
    expect(ids).not.toContain("claude-sonnet-4-5");
    expect(page.data.filter((m) => !m.id.startsWith("svc:")).every((m) => m.owned_by === "openai")).toBe(true);
  });

  test("each virtual model has its own description", async () => {
    const { data } = await getJson(openaiOnly.url, "/v1/models");
    const virtual = new Map<string, { strategy: string; description: string }>(data.filter((m: any) => m.owned_by === "relay").map((m: any) => [m.id, m]));
    expect([...virtual.keys()].sort()).toEqual([...VIRTUAL].sort());
    expect(new Set([...virtual.values()].map((v) => v.description)).size).toBe(VIRTUAL.length);
    expect(virtual.get("svc:auto")).toMatchObject({ strategy: "complexity", description: expect.stringContaining("Scores each request") });
    expect(virtual.get("svc:cheap")!.description).toContain("cheapest");
    expect(virtual.get("svc:cascade")).toMatchObject({ strategy: "cascade", description: expect.stringContaining("escalating") });
  });

  test("?all=true lists every model the catalog knows, keys or not", async () => {
    const all = await openaiClient(openaiOnly.url).models.list({ query: { all: "true" } });
    const ids = all.data.map((m) => m.id);
    expect(concrete(ids)).toEqual(openaiOnly.relay.relay.catalog.list().map((m) => m.id));
    expect(ids).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "claude-opus-5-5", "gemini-3.5-flash"]));
    // Also on the substring route (spec §4.2 rule 1).
    expect(concrete((await getJson(openaiOnly.url, "/openai/v1/models?all=true")).data.map((m: any) => m.id))).toEqual(concrete(ids));
  });

  test("both keys: both providers' models", async () => {
    const ids = (await openaiClient(both.url).models.list()).data.map((m) => m.id);
    expect(concrete(ids)).toEqual(knownOf(both, ["openai", "anthropic"]));
    expect(ids).toEqual(expect.arrayContaining(["claude-haiku-4-5", "gpt-5-mini", "claude-opus-5-5"]));
  });

  test("an Anthropic key on an OpenAI-shaped request does not count: chat completions would not use it", async () => {
    const { data } = await getJson(openaiOnly.url, "/v1/models", { "x-api-key": "sk-ant-client" });
    expect(concrete(data.map((m: any) => m.id))).toEqual(knownOf(openaiOnly, ["openai"]));
  });
});

describe("the Anthropic-shaped list (anthropic-version)", () => {
  test("an Anthropic key on the request lists Anthropic's models for that request (@anthropic-ai/sdk)", async () => {
    const ids: string[] = [];
    for await (const m of anthropicClient(openaiOnly.url).models.list()) ids.push(m.id);
    expect(ids.slice(0, VIRTUAL.length).sort()).toEqual([...VIRTUAL].sort());
    // The models /v1/messages serves by name: the Anthropic-format provider's.
    expect(concrete(ids)).toEqual(openaiOnly.relay.relay.catalog.list().filter((m) => m.provider === "anthropic").map((m) => m.id));
    expect(ids).toEqual(expect.arrayContaining(["claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-opus-5-5"]));
  });

  test("an OAuth token in authorization counts too; no credential and no key lists only the virtual models", async () => {
    const oauth = await getJson(openaiOnly.url, "/v1/models", { "anthropic-version": "2023-06-01", authorization: "Bearer sk-ant-oat01-client" });
    expect(oauth.data.map((m: any) => m.id)).toContain("claude-sonnet-4-5");
    const bare = await getJson(openaiOnly.url, "/v1/models", { "anthropic-version": "2023-06-01" });
    expect(bare.data.map((m: any) => m.id).sort()).toEqual([...VIRTUAL].sort());
    expect(bare).toMatchObject({ has_more: false, first_id: bare.data[0].id, last_id: bare.data.at(-1).id });
    const all = await getJson(openaiOnly.url, "/v1/models?all=true", { "anthropic-version": "2023-06-01" });
    expect(all.data.map((m: any) => m.id)).toContain("claude-sonnet-4-5");
    expect(all.data.map((m: any) => m.id)).not.toContain("gpt-5");
  });

  test("Relay's own key is enough", async () => {
    const { data } = await getJson(both.url, "/v1/models", { "anthropic-version": "2023-06-01" });
    expect(data.map((m: any) => m.id)).toContain("claude-haiku-4-5");
    expect(data[0]).toMatchObject({ type: "model", display_name: expect.any(String), created_at: expect.any(String) });
  });
});

describe("defaults that follow the keys", () => {
  test("only OPENAI_API_KEY: svc:cascade answers 200 and escalates within OpenAI's models", async () => {
    openaiOnly.openai.enqueue({ text: HEDGE }, { text: "The answer is 42." });
    const { data, response } = await openaiClient(openaiOnly.url)
      .chat.completions.create({ model: "svc:cascade", messages: [{ role: "user", content: "What is the answer?" }] })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]!.message.content).toBe("The answer is 42.");
    expect(response.headers.get("x-svc-strategy")).toBe("cascade");
    expect(response.headers.get("x-svc-routed-model")).toBe("gpt-5-mini");
    expect(response.headers.get("x-svc-routing-reasons")).toContain("default openai chain");
    expect(openaiOnly.openai.requests.map((r) => r.json.model)).toEqual(["gpt-5-nano", "gpt-5-mini"]);
    expect(openaiOnly.anthropic.requests).toHaveLength(0);
  });

  test("only OPENAI_API_KEY: svc:auto and svc:best use OpenAI's tier models", async () => {
    const simple = await post(openaiOnly.url, "/v1/chat/completions", chatBody("svc:auto", "hi"));
    expect(simple.status).toBe(200);
    expect(simple.headers.get("x-svc-routed-model")).toBe("gpt-5-nano");
    const best = await post(openaiOnly.url, "/v1/chat/completions", chatBody("svc:best", "hi"));
    expect(best.headers.get("x-svc-routed-model")).toBe("gpt-5");
  });

  test("both keys: the default cascade chain stays Anthropic's, as before", async () => {
    both.anthropic.enqueue({ text: HEDGE }, { text: "42." });
    const res = await post(both.url, "/v1/chat/completions", chatBody("svc:cascade", "What is the answer?"));
    expect(res.status).toBe(200);
    expect(both.anthropic.requests.map((r) => r.json.model)).toEqual(["claude-haiku-4-5", "claude-sonnet-4-5"]);
    expect(both.openai.requests).toHaveLength(0);
  });
});

describe("configured chains are kept as configured", () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ withoutKeys: ["ANTHROPIC_API_KEY"], config: { routing: { strategies: { cascade: { chain: ["claude-haiku-4-5", "claude-sonnet-4-5"] } } } } });
  });
  afterAll(() => w.stop());

  test("a configured Anthropic chain without an Anthropic key is not swapped for OpenAI's: 503 no_candidate", async () => {
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:cascade", "What is the answer?"));
    expect(res.status).toBe(503);
    expect((await errorOf(res)).message).toContain("cascade over 0 of 2 chain models");
    expect(w.openai.requests).toHaveLength(0);
  });
});
