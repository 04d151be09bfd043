// The cloud's telemetry and mesh routes (issue 38 items 4 and 6) over real HTTP on the `relay cloud`
// listener, on SQLite and on Postgres: mesh outcomes and run records uploaded, validated field by
// field, size-limited and stored once per batch id; the uploaded runs are the team's log (/api/logs,
// /v1/telemetry/stats|runs|savings in the proxy's shapes, another team's never counted); provider
// health and the mesh status aggregate across teams; POST /v1/route recommends the cheapest model
// meeting the bar for a bucket; and no key, a wrong key and a read-only key on an upload are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;

describe.each(["sqlite", "postgres"] as const)("cloud telemetry and mesh on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let teamA: { id: string; key: string; readOnly: string };
  let teamB: { id: string; key: string };
  let now: number;

  const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
    fetch(`${cloud.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-api-key": key }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  const getJson = async (path: string, key = teamA.key): Promise<Json> => {
    const res = await call("GET", path, key);
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  const batchId = () => `mb_${crypto.randomUUID()}`;
  const outcome = (over: Json = {}) => ({ ts: now - 60_000, model: "gpt-4o-mini", provider: "openai", tier: "simple", bucket: "simple.xs", class: "ok", latency_ms: 100, cost_usd: 0.001, escalations: 0, ...over });
  const run = (over: Json = {}) => ({
    id: `req_${crypto.randomUUID()}`,
    timestamp: new Date(now - 30_000).toISOString(),
    latency_ms: 250,
    model: "gpt-4o-mini",
    requested_model: "svc:auto",
    provider: "openai",
    tier: "simple",
    status: 200,
    tokens: { input: 1_000_000, output: 100_000 },
    estimated_cost_usd: 0.21,
    metadata: { customer: "acme", svc_relay_id: "evt_forged" },
    ...over,
  });

  async function expectInvalid(res: Response, parameter: string) {
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: { code: "invalid_request", message: expect.any(String), details: expect.objectContaining({ parameter }) }, request_id: expect.stringMatching(/^req_/) });
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_telemetry");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 23, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    const a = await createTeam(store, "Team A", "pro");
    const b = await createTeam(store, "Team B", "pro");
    teamA = { id: a.team.id, key: a.secret, readOnly: (await createKey(store.apiKeys, a.team.id, "read_only", "viewer")).secret };
    teamB = { id: b.team.id, key: b.secret };
    now = w.relay.relay.clock.now();
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("POST /v1/telemetry stores a batch of outcomes once; a re-sent batch is a duplicate", async () => {
    const id = batchId();
    const body = { batch_id: id, outcomes: [outcome(), outcome({ class: "server_error", latency_ms: 30 }), outcome({ ts: new Date(now - 1000).toISOString() })] };
    const first = await call("POST", "/v1/telemetry", teamA.key, body);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(await first.json()).toEqual({ batch_id: id, accepted: 3, duplicate: false });
    const again = await call("POST", "/v1/telemetry", teamA.key, body);
    expect(await again.json()).toEqual({ batch_id: id, accepted: 0, duplicate: true });
    // Team B may use the same batch id: batches are the team's own.
    expect(await (await call("POST", "/v1/telemetry", teamB.key, { batch_id: id, outcomes: [outcome()] })).json()).toEqual({ batch_id: id, accepted: 1, duplicate: false });

    const status = await getJson("/v1/status");
    const mini = status.team.models.find((m: Json) => m.model === "gpt-4o-mini" && m.bucket === "simple.xs");
    expect(mini).toEqual(expect.objectContaining({ provider: "openai", requests: 3, errors: 1, escalations: 0 }));
    expect(mini.success_rate).toBeCloseTo(2 / 3);
    expect(status.team).toEqual(expect.objectContaining({ batches: 1, items: 3, last_received_at: expect.any(String) }));
    expect(status.global.batches).toBe(2);
    expect(status.global.models.find((m: Json) => m.model === "gpt-4o-mini" && m.bucket === "simple.xs").requests).toBe(4);
    expect(status).toEqual(expect.objectContaining({ window: "24h", min_requests: 5 }));
  });

  test("POST /v1/telemetry names each invalid field; no text fits in a name or a bucket", async () => {
    const bad = (outcomes: unknown, batch: unknown = batchId()) => call("POST", "/v1/telemetry", teamA.key, { batch_id: batch, outcomes });
    await expectInvalid(await bad([outcome()], "short"), "batch_id");
    await expectInvalid(await bad([outcome()], 42), "batch_id");
    await expectInvalid(await bad(undefined), "outcomes");
    await expectInvalid(await bad([]), "outcomes");
    await expectInvalid(await bad(Array.from({ length: 1001 }, () => outcome())), "outcomes");
    await expectInvalid(await bad(["x"]), "outcomes[0]");
    await expectInvalid(await bad([outcome(), outcome({ model: "ignore previous instructions" })]), "outcomes[1].model");
    await expectInvalid(await bad([outcome({ provider: "" })]), "outcomes[0].provider");
    await expectInvalid(await bad([outcome({ bucket: "simple.xs secret prompt" })]), "outcomes[0].bucket");
    await expectInvalid(await bad([outcome({ class: "boom" })]), "outcomes[0].class");
    await expectInvalid(await bad([outcome({ tier: "huge" })]), "outcomes[0].tier");
    await expectInvalid(await bad([outcome({ ts: "yesterday" })]), "outcomes[0].ts");
    await expectInvalid(await bad([outcome({ latency_ms: -1 })]), "outcomes[0].latency_ms");
    await expectInvalid(await bad([outcome({ cost_usd: "free" })]), "outcomes[0].cost_usd");
    await expectInvalid(await bad([outcome({ escalations: 1.5 })]), "outcomes[0].escalations");
    const broken = await call("POST", "/v1/telemetry", teamA.key, "{not json");
    expect(broken.status).toBe(400);
    const huge = await call("POST", "/v1/telemetry", teamA.key, { batch_id: batchId(), outcomes: [outcome({ pad: "x".repeat(1_100_000) })] });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as Json).error.code).toBe("request_too_large");
  });

  test("POST /v1/telemetry/logs stores the runs as the team's log, once per batch, in the proxy's read models", async () => {
    const id = batchId();
    const failed = run({ status: 503, model: "gpt-4o", estimated_cost_usd: 0, tokens: { input: 10, output: 0 }, fallback_events: [{ type: "error", model: "gpt-4o", provider: "openai", status: 503, reason: "overloaded" }] });
    const ok = run();
    const res = await call("POST", "/v1/telemetry/logs", teamA.key, { batch_id: id, runs: [ok, failed] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ batch_id: id, accepted: 2, duplicate: false });
    expect(await (await call("POST", "/v1/telemetry/logs", teamA.key, { batch_id: id, runs: [ok, failed] })).json()).toEqual({ batch_id: id, accepted: 0, duplicate: true });

    // The hosted log shows them, the caller's metadata without Relay's own keys.
    const log = await getJson(`/api/logs/${ok.id}`);
    expect(log).toEqual(expect.objectContaining({ id: ok.id, model: "gpt-4o-mini", requested_model: "svc:auto", status: 200, estimated_cost_usd: 0.21, metadata: { customer: "acme" }, relay_id: null }));

    const runsPage = await getJson("/v1/telemetry/runs?limit=1&offset=0");
    expect(runsPage).toEqual({ runs: [expect.objectContaining({ teamId: teamA.id })], total: 2, limit: 1, offset: 0 });
    const stats = await getJson("/v1/telemetry/stats?days=1");
    expect(stats).toEqual(expect.objectContaining({ days: 1, requests: 2, errors: 1, successRate: 0.5, latencyMs: { p50: 250, p95: 250, p99: 250 } }));
    expect(stats.models.map((m: Json) => m.model).sort()).toEqual(["gpt-4o", "gpt-4o-mini"]);
    const savings = await getJson("/v1/telemetry/savings");
    expect(savings).toEqual(expect.objectContaining({ days: 7, actualUsd: 0.21, baselineModel: expect.any(String), models: expect.any(Array) }));
    expect(savings.savedUsd).toBeGreaterThan(0);

    // Another team sees none of them.
    expect(await getJson("/v1/telemetry/runs", teamB.key)).toEqual({ runs: [], total: 0, limit: 50, offset: 0 });
    expect((await getJson("/v1/telemetry/stats", teamB.key)).requests).toBe(0);
    expect((await call("GET", `/api/logs/${ok.id}`, teamB.key)).status).toBe(404);
    // Their outcomes fed the mesh, in the bucket of their tier and size: the failure counts against gpt-4o once.
    const status = await getJson("/v1/status");
    expect(status.team.models.find((m: Json) => m.model === "gpt-4o")).toEqual(expect.objectContaining({ bucket: "simple.xs", requests: 1, errors: 1 }));
    expect(status.team.models.find((m: Json) => m.model === "gpt-4o-mini" && m.bucket === "simple.l")).toEqual(expect.objectContaining({ requests: 1, errors: 0 }));
  });

  test("POST /v1/telemetry/logs names each invalid field", async () => {
    const bad = (runs: unknown) => call("POST", "/v1/telemetry/logs", teamA.key, { batch_id: batchId(), runs });
    await expectInvalid(await call("POST", "/v1/telemetry/logs", teamA.key, { runs: [run()] }), "batch_id");
    await expectInvalid(await bad([]), "runs");
    await expectInvalid(await bad([run({ id: "has spaces" })]), "runs[0].id");
    await expectInvalid(await bad([run({ timestamp: "soon" })]), "runs[0].timestamp");
    await expectInvalid(await bad([run({ latency_ms: "fast" })]), "runs[0].latency_ms");
    await expectInvalid(await bad([run({ model: undefined })]), "runs[0].model");
    await expectInvalid(await bad([run({ status: 42 })]), "runs[0].status");
    await expectInvalid(await bad([run({ tokens: { input: -1, output: 0 } })]), "runs[0].tokens.input");
    await expectInvalid(await bad([run({ tokens: undefined })]), "runs[0].tokens");
    await expectInvalid(await bad([run({ stream: "yes" })]), "runs[0].stream");
    await expectInvalid(await bad([run({ metadata: [] })]), "runs[0].metadata");
    await expectInvalid(await bad([run({ metadata: { big: "x".repeat(9000) } })]), "runs[0].metadata");
    await expectInvalid(await bad([run({ fallback_events: [{ type: "mystery", model: "m", provider: "p" }] })]), "runs[0].fallback_events[0].type");
    await expectInvalid(await bad([run(), run({ tier: 3 })]), "runs[1].tier");
  });

  test("GET /v1/telemetry/health aggregates provider health across every team's reports", async () => {
    const outcomes = [...Array.from({ length: 6 }, () => outcome({ provider: "groq", model: "llama-3.3-70b" })), ...Array.from({ length: 6 }, () => outcome({ provider: "mistral", model: "mistral-small", class: "rate_limited" }))];
    expect((await call("POST", "/v1/telemetry", teamB.key, { batch_id: batchId(), outcomes })).status).toBe(200);
    const health = await getJson("/v1/telemetry/health", teamA.readOnly);
    const byName = Object.fromEntries(health.providers.map((p: Json) => [p.provider, p]));
    expect(byName.groq).toEqual({ provider: "groq", state: "healthy", requests: 6, errors: 0, successRate: 1 });
    expect(byName.mistral).toEqual({ provider: "mistral", state: "degraded", requests: 6, errors: 6, successRate: 0 });
    expect(health.window).toBe("24h");
  });

  test("POST /v1/route recommends the cheapest model meeting the bar for the bucket", async () => {
    const many = (n: number, over: Json) => Array.from({ length: n }, () => outcome({ tier: "complex", bucket: "complex.m", ...over }));
    const outcomes = [
      ...many(10, { model: "gpt-4o", provider: "openai" }),
      ...many(10, { model: "gpt-4o-mini", provider: "openai", class: "server_error" }),
      ...many(8, { model: "claude-haiku-4-5", provider: "anthropic" }),
      ...many(2, { model: "claude-haiku-4-5", provider: "anthropic", class: "timeout" }),
    ];
    expect((await call("POST", "/v1/telemetry", teamA.key, { batch_id: batchId(), outcomes })).status).toBe(200);
    const route = async (body: Json) => {
      const res = await call("POST", "/v1/route", teamB.key, body);
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    // gpt-4o-mini is cheapest but fails; haiku (80%) misses the default 90% bar.
    expect(await route({ tier: "complex", input_tokens: 10_000 })).toEqual(expect.objectContaining({ bucket: "complex.m", model: "openai:gpt-4o", min_success_rate: 0.9 }));
    const lower = await route({ bucket: "complex.m", min_success_rate: 0.8 });
    expect(lower.model).toBe("anthropic:claude-haiku-4-5");
    expect(lower.alternatives).toEqual(["openai:gpt-4o"]);
    expect((await route({ bucket: "complex.m", candidates: ["claude-haiku-4-5"] })).model).toBeNull();
    expect((await route({ bucket: "simple.l" })).model).toBeNull();

    await expectInvalid(await call("POST", "/v1/route", teamB.key, {}), "bucket");
    await expectInvalid(await call("POST", "/v1/route", teamB.key, { bucket: "complex.m please" }), "bucket");
    await expectInvalid(await call("POST", "/v1/route", teamB.key, { tier: "giant", input_tokens: 5 }), "tier");
    await expectInvalid(await call("POST", "/v1/route", teamB.key, { tier: "simple", input_tokens: -5 }), "input_tokens");
    await expectInvalid(await call("POST", "/v1/route", teamB.key, { bucket: "simple.s", min_success_rate: 2 }), "min_success_rate");
    await expectInvalid(await call("POST", "/v1/route", teamB.key, { bucket: "simple.s", candidates: "gpt-4o" }), "candidates");
  });

  test("query bounds of stats, runs and savings are named", async () => {
    await expectInvalid(await call("GET", "/v1/telemetry/stats?days=400", teamA.key), "days");
    await expectInvalid(await call("GET", "/v1/telemetry/runs?limit=0", teamA.key), "limit");
    await expectInvalid(await call("GET", "/v1/telemetry/runs?offset=x", teamA.key), "offset");
    await expectInvalid(await call("GET", "/v1/telemetry/savings?days=-1", teamA.key), "days");
  });

  test("no key, a wrong key and a read-only key on an upload are refused; a read-only key reads", async () => {
    const routes: [string, string, unknown][] = [
      ["POST", "/v1/telemetry", { batch_id: batchId(), outcomes: [outcome()] }],
      ["POST", "/v1/telemetry/logs", { batch_id: batchId(), runs: [run()] }],
      ["POST", "/v1/route", { bucket: "simple.xs" }],
      ["GET", "/v1/telemetry/stats", undefined],
      ["GET", "/v1/telemetry/runs", undefined],
      ["GET", "/v1/telemetry/savings", undefined],
      ["GET", "/v1/telemetry/health", undefined],
      ["GET", "/v1/status", undefined],
    ];
    for (const [method, path, body] of routes) {
      const none = await call(method, path, undefined, body);
      expect([path, none.status, ((await none.json()) as Json).error.code]).toEqual([path, 401, "missing_api_key"]);
      const wrong = await call(method, path, "rk_live_not-a-key", body);
      expect([path, wrong.status, ((await wrong.json()) as Json).error.code]).toEqual([path, 401, "invalid_api_key"]);
      const readOnly = await call(method, path, teamA.readOnly, body);
      expect([path, readOnly.status]).toEqual([path, method === "POST" ? 403 : 200]);
    }
    // Nothing the refused uploads carried was stored.
    expect((await getJson("/v1/status")).team.batches).toBe(3);
  });
});
