// The public data of `relay cloud` (spec §2.9, §4.3; issue 38 item 3) over real HTTP, on SQLite and
// on Postgres: GET /models.json lists every catalog model of every provider (no key is configured
// here) and the virtual models; prices are the price data's own (read from @pydantic/genai-prices,
// not from Relay's code), capabilities models.dev's or null, never made up; /providers.json lists the
// plugins with counts and nothing secret; /api/v1/catalog filters and pages, each result checked
// against the filter's predicate; each bad parameter is a 400 naming it; ETags give 304s until a
// config reload changes the catalog; no key, no rate limit, cache headers on every answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { calcPrice } from "@pydantic/genai-prices";
import { modelMetadata } from "../../src/core/catalog/metadata.ts";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { PUBLIC_CACHE_CONTROL } from "../../src/surfaces/cloud/public-data.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const MODEL_KEYS = ["aliases", "capabilities", "context_window", "description", "id", "max_output_tokens", "model", "object", "pricing", "provider", "routable", "strategy", "tier"];
const CAPABILITIES = ["json", "reasoning", "streaming", "tools", "vision"];
/** A secret that must never show: the server holds it as Anthropic's key. */
const SECRET = "sk-ant-public-data-secret-123";

/** The base-tier per-million price the price data lists for a model (tiered prices show their base). */
function listedPrice(provider: string, id: string) {
  const price = calcPrice({}, id, { providerId: provider })!.model_price;
  const base = (v: unknown) => (typeof v === "object" && v !== null ? (v as { base: number }).base : (v as number | undefined));
  return { input: base(price.input_mtok), output: base(price.output_mtok), cache_read: base(price.cache_read_mtok) ?? null, cache_write: base(price.cache_write_mtok) ?? null };
}

const sortedById = (items: Json[]) => items.map((m) => m.id).every((id, i, ids) => i === 0 || ids[i - 1] < id);

describe.each(["sqlite", "postgres"] as const)("public data on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  let cloud: Listener;
  let all: Json[];

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${cloud.url}${path}`, { headers });
  async function ok(path: string): Promise<Json> {
    const res = await get(path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("cache-control"), path).toBe(PUBLIC_CACHE_CONTROL);
    expect(res.headers.get("etag"), path).toMatch(/^"[0-9a-z]+"$/);
    return (await res.json()) as Json;
  }
  /** Every page of a catalog query, followed by starting_after. */
  async function everyPage(query: string, limit: number): Promise<Json[]> {
    const seen: Json[] = [];
    for (let after = ""; ; ) {
      const page = await ok(`/api/v1/catalog?${query}&limit=${limit}${after}`);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      seen.push(...page.data);
      if (!page.has_more) return seen;
      expect(page.data.length).toBe(limit);
      after = `&starting_after=${encodeURIComponent(page.data.at(-1).id)}`;
    }
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_public_data");
    r = await startRelay({ env: { ANTHROPIC_API_KEY: SECRET }, config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
    all = (await ok("/models.json")).data;
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  test("/models.json: every catalog model of every provider and the virtual models, one shape, sorted by id", async () => {
    const catalog = r.relay.catalog.list();
    const virtual = r.relay.registry.virtualModelNames();
    expect(catalog.length).toBeGreaterThan(250);
    expect(all.length).toBe(catalog.length + virtual.length);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(sortedById(all)).toBe(true);
    for (const m of all) expect(Object.keys(m).sort(), m.id).toEqual(MODEL_KEYS);
    // Only Anthropic has a key here: the others are listed all the same.
    for (const p of ["anthropic", "openai", "google", "xai", "deepseek", "groq", "mistral", "perplexity"]) {
      expect(all.filter((m) => m.provider === p).length, p).toBe(catalog.filter((m) => m.provider === p).length);
    }
    const sonnet = all.find((m) => m.id === "anthropic:claude-sonnet-4-5")!;
    expect(sonnet).toMatchObject({ object: "model", provider: "anthropic", model: "claude-sonnet-4-5", routable: true, tier: "moderate", strategy: null });
    expect(sonnet.aliases).toContain("sonnet");
    expect(sonnet.capabilities).toEqual(expect.arrayContaining(["tools", "vision"]));
    const auto = all.find((m) => m.id === "svc:auto")!;
    expect(auto).toMatchObject({ object: "virtual_model", provider: "relay", model: "svc:auto", strategy: virtual.find((v) => v.model === "svc:auto")!.strategy, pricing: null, capabilities: null });
    expect(all.filter((m) => m.object === "virtual_model").map((m) => m.id).sort()).toEqual(virtual.map((v) => v.model).sort());
  });

  test("prices are the price data's own, in USD per million tokens", () => {
    for (const [provider, model] of [["anthropic", "claude-sonnet-4-5"], ["openai", "gpt-4o-mini"], ["google", "gemini-2.5-flash"]] as const) {
      const listed = all.find((m) => m.id === `${provider}:${model}`)!;
      expect(listed.pricing, model).toEqual(listedPrice(provider, model));
      expect(listed.pricing.input, model).toBeGreaterThan(0);
    }
    const priced = all.filter((m) => m.pricing);
    expect(priced.length).toBeGreaterThan(250);
    // Every listed price is the catalog's (the one Relay's cost accounting uses), field by field.
    for (const m of priced) {
      const price = r.relay.catalog.list().find((c) => `${c.provider}:${c.id}` === m.id)!.price!;
      expect(m.pricing, m.id).toEqual({ input: price.input, output: price.output, cache_read: price.cacheRead ?? null, cache_write: price.cacheWrite ?? null });
    }
  });

  test("capabilities are models.dev's flags, or null where it says nothing: never made up", () => {
    let described = 0;
    let unknown = 0;
    // Routable models may borrow a sibling's flags (the catalog's overlay says whose); the rest are checked against models.dev.
    for (const m of all.filter((m) => m.object === "model" && !m.routable)) {
      const meta = modelMetadata(m.provider, m.model);
      if (!meta) {
        expect(m.capabilities, m.id).toBeNull();
        unknown++;
        continue;
      }
      expect(m.capabilities, m.id).toEqual(CAPABILITIES.filter((c) => meta.capabilities[c as keyof typeof meta.capabilities]));
      expect(m.context_window, m.id).toBe(meta.contextWindow);
      expect(m.max_output_tokens, m.id).toBe(meta.maxOutput);
      described++;
    }
    expect(described).toBeGreaterThan(50);
    expect(unknown).toBeGreaterThan(10);
  });

  test("/providers.json: every loaded provider plugin with counts from the same models, nothing secret", async () => {
    const res = await get("/providers.json");
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/https?:\/\//);
    const providers = (JSON.parse(text) as Json).data as Json[];
    expect(providers.map((p) => p.id)).toEqual([...r.relay.registry.providers.keys()].sort());
    for (const p of providers) {
      expect(Object.keys(p).sort(), p.id).toEqual(["formats", "id", "model_count", "name", "priced_model_count", "routable_model_count"]);
      const own = all.filter((m) => m.provider === p.id);
      expect(p, p.id).toMatchObject({ model_count: own.length, routable_model_count: own.filter((m) => m.routable).length, priced_model_count: own.filter((m) => m.pricing).length });
      expect(p.formats[0], p.id).toBe(r.relay.registry.providers.get(p.id)!.format);
    }
    expect(providers.find((p) => p.id === "openai")!.formats).toEqual(["openai", "responses"]);
    expect((await get("/models.json").then((x) => x.text()))).not.toContain(SECRET);
  });

  test("no key needed, none of the guard's rate-limit headers, and no team's limit counts them", async () => {
    const free = await createTeam(r.relay.store, "Public free", "free");
    const callers: Record<string, string>[] = [{}, { "x-api-key": "rk_live_not_a_key" }, { "x-api-key": free.secret }];
    for (const headers of callers) {
      for (const path of ["/models.json", "/providers.json", "/api/v1/catalog"]) {
        const res = await get(path, headers);
        expect(res.status, path).toBe(200);
        expect(res.headers.get("x-ratelimit-limit"), path).toBeNull();
        expect(res.headers.get("x-svc-request-id"), path).toMatch(/^req_/);
        await res.body?.cancel();
      }
    }
    // More than the free plan's 60 a minute, with its key: all served.
    const statuses = await Promise.all(Array.from({ length: 70 }, () => get("/api/v1/catalog?limit=1", { "x-api-key": free.secret }).then((x) => x.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  test("ETag: stable, If-None-Match gives a bodiless 304 with the cache headers, a stale tag the new body", async () => {
    for (const path of ["/models.json", "/providers.json", "/api/v1/catalog?provider=openai&capability=vision"]) {
      const first = await get(path);
      const etag = first.headers.get("etag")!;
      const body = await first.text();
      const again = await get(path);
      expect(again.headers.get("etag"), path).toBe(etag);
      expect(await again.text(), path).toBe(body);
      for (const given of [etag, `W/${etag}`, `"stale", ${etag}`]) {
        const cached = await get(path, { "if-none-match": given });
        expect(cached.status, `${path} ${given}`).toBe(304);
        expect(await cached.text()).toBe("");
        expect(cached.headers.get("etag")).toBe(etag);
        expect(cached.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
      }
      const stale = await get(path, { "if-none-match": '"stale"' });
      expect(stale.status).toBe(200);
      expect(await stale.text()).toBe(body);
    }
    // Different filters, different bodies, different tags.
    const a = (await get("/api/v1/catalog?provider=openai")).headers.get("etag");
    const b = (await get("/api/v1/catalog?provider=google")).headers.get("etag");
    expect(a).not.toBe(b);
  });

  test("a config reload that changes the catalog changes the body and its ETag", async () => {
    const before = await get("/models.json");
    const etag = before.headers.get("etag")!;
    await before.body?.cancel();
    const file = join(r.home, "config.json");
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, JSON.stringify({ ...JSON.parse(original), models: [{ provider: "anthropic", id: "claude-haiku-4-5", price: { input: 0.9, output: 4.5 }, contextWindow: 123456 }] }));
      r.relay.reloadConfig();
      const after = await get("/models.json", { "if-none-match": etag });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
      const haiku = ((await after.json()) as Json).data.find((m: Json) => m.id === "anthropic:claude-haiku-4-5");
      expect(haiku).toMatchObject({ pricing: { input: 0.9, output: 4.5, cache_read: null, cache_write: null }, context_window: 123456 });
      const found = await ok("/api/v1/catalog?provider=anthropic&min_context=123456&max_price=0.9&min_price=0.9");
      expect(found.data.map((m: Json) => m.id)).toEqual(["anthropic:claude-haiku-4-5"]);
    } finally {
      writeFileSync(file, original);
      r.relay.reloadConfig();
    }
    expect((await get("/models.json", { "if-none-match": etag })).status).toBe(304);
  });

  describe("/api/v1/catalog", () => {
    test("no filter: the first 50 of /models.json, has_more, total; every page in turn is the whole list", async () => {
      const page = await ok("/api/v1/catalog");
      expect(page).toMatchObject({ object: "list", has_more: true, total: all.length });
      expect(page.data).toEqual(all.slice(0, 50));
      expect(await everyPage("", 200)).toEqual(all);
      const last = await ok(`/api/v1/catalog?limit=200&starting_after=${encodeURIComponent(all.at(-2)!.id)}`);
      expect(last).toMatchObject({ data: [all.at(-1)], has_more: false });
      // A cursor is compared, not looked up: an id that is not in the list still places the page.
      const between = await ok(`/api/v1/catalog?limit=1&starting_after=${encodeURIComponent(`${all[10]!.id}~`)}`);
      expect(between.data[0].id > all[10]!.id).toBe(true);
      expect(between.data[0].id).toBe(all.find((m) => m.id > `${all[10]!.id}~`)!.id);
    });

    const cases: Array<[string, string, (m: Json) => boolean]> = [
      ["one provider", "provider=google", (m) => m.provider === "google"],
      ["providers, comma list and repeated", "provider=xai,groq&provider=deepseek", (m) => ["xai", "groq", "deepseek"].includes(m.provider)],
      ["the virtual models", "provider=relay", (m) => m.object === "virtual_model"],
      ["a provider with no catalog models", "provider=ollama", () => false],
      ["every capability given", "capability=vision&capability=reasoning,tools", (m) => ["vision", "reasoning", "tools"].every((c) => m.capabilities?.includes(c))],
      ["input price range", "min_price=0.1&max_price=1", (m) => m.pricing !== null && m.pricing.input >= 0.1 && m.pricing.input <= 1],
      ["output price ceiling", "max_price=2&price_field=output", (m) => m.pricing !== null && m.pricing.output <= 2],
      ["a decimal ceiling", "max_price=0.1", (m) => m.pricing !== null && m.pricing.input <= 0.1],
      ["context window", "min_context=1000000", (m) => m.context_window !== null && m.context_window >= 1_000_000],
      [
        "every filter at once",
        "provider=openai,google&capability=tools&min_price=0.05&max_price=3&min_context=128000",
        (m) => ["openai", "google"].includes(m.provider) && m.capabilities?.includes("tools") && m.pricing?.input >= 0.05 && m.pricing?.input <= 3 && m.context_window >= 128_000,
      ],
    ];
    test.each(cases)("%s", async (_name, query, wanted) => {
      const expected = all.filter(wanted);
      const page = await ok(`/api/v1/catalog?${query}`);
      expect(page.total).toBe(expected.length);
      expect(page.has_more).toBe(expected.length > 50);
      expect(await everyPage(query, 7)).toEqual(expected);
    });

    test("the filters really narrow: each case above matches some models but not all", () => {
      for (const [name, , wanted] of cases.filter(([n]) => !n.includes("no catalog models"))) {
        const n = all.filter(wanted).length;
        expect(n, name).toBeGreaterThan(0);
        expect(n, name).toBeLessThan(all.length);
      }
    });

    const bad: Array<[string, string, string]> = [
      ["limit=0", "limit", "integer"],
      ["limit=201", "limit", "integer"],
      ["limit=ten", "limit", "integer"],
      ["limit=5&limit=6", "limit", "integer"],
      ["min_price=-1", "min_price", "number"],
      ["max_price=cheap", "max_price", "number"],
      ["min_price=2&max_price=1", "max_price", "number"],
      ["price_field=total&max_price=1", "price_field", "string"],
      ["min_context=0", "min_context", "integer"],
      ["min_context=1.5", "min_context", "integer"],
      ["capability=tools,telepathy", "capability", "string"],
      ["provider=anthropic,nosuch", "provider", "string"],
      ["starting_after=", "starting_after", "string"],
      ["capabilities=tools", "capabilities", "none"],
    ];
    test.each(bad)("?%s is a 400 naming %s", async (query, parameter, expected) => {
      const res = await get(`/api/v1/catalog?${query}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as Json;
      expect(body).toEqual({
        error: { code: "invalid_request", message: expect.stringContaining(parameter), details: expect.objectContaining({ parameter, expected }) },
        request_id: res.headers.get("x-svc-request-id"),
      });
      expect(body.request_id).toMatch(/^req_/);
      expect(res.headers.get("cache-control")).not.toBe(PUBLIC_CACHE_CONTROL);
    });
  });
});
