// Every status of spec §7.1 on every key-guarded hosted route, over real HTTP on SQLite and on
// Postgres. The routes are read from the listener's own surfaces, so a new /api route without a row
// in CASES fails here. For each route: its success; 400 naming the parameter where it takes input;
// 401 for a missing, an unknown and a revoked key; 403 for a read-only key on a core route and for a
// plan without the feature; 429 with Retry-After and x-ratelimit-* once a free team's minute is used
// up; and 500 when the store breaks under the running server (a table the guard reads is renamed
// away from another connection, as a botched migration or a restored backup would leave it), after
// which the route serves again. Every refusal is the hosted error object with a req_… id, also in
// the x-svc-request-id header, and no internals.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import type { PlanName } from "../../src/core/tenancy/plans.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe.ts";
import { chatBody, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;

interface Call {
  path: string;
  body?: unknown;
}

type BadCall = Call & { parameter: string };

interface Case {
  /** A call that succeeds for a pro team's standard key, and its status. */
  ok: () => Promise<Call> | Call;
  status: number;
  /** A call with invalid input and the parameter its 400 names; absent: the route takes no input but its path's id. */
  bad?: () => Promise<BadCall> | BadCall;
  /** A read-only key may use the route (health, usage analytics, log viewing). */
  readOnly: boolean;
  /** The cheapest plan with the route's feature, when not every plan has it. */
  plan?: PlanName;
}

const { model: _, ...payload } = chatBody("gpt-4o-mini");
/** Nothing listens there: deliveries fail, which no case here waits for. */
const HOOK = "http://127.0.0.1:9/hook";
const STORED_KEY = { path: "/api/v1/credentials", body: { provider: "openai", api_key: "sk-matrix-0123456789" } };
/** A benchmark run of one model on the shipped set, under a small cap. */
const BENCHMARK = { path: "/api/v1/benchmarks/run", body: { models: ["gpt-4o-mini"], prompt_set: "basics", spend_cap_usd: 0.01, max_tokens: 16 } };
const CHECKOUT = { path: "/v1/billing/checkout", body: { plan: "pro", success_url: "https://app.example/done", cancel_url: "https://app.example/billing" } };
/** A fresh batch id per call, so each upload is stored rather than recognised as a duplicate. */
const batchId = () => `mb_${crypto.randomUUID()}`;
const OUTCOME = { ts: Date.now(), model: "gpt-4o-mini", provider: "openai", tier: "simple", bucket: "simple.xs", class: "ok", latency_ms: 120, cost_usd: 0.0001, escalations: 0 };
const UPLOADED_RUN = () => ({ id: `req_${crypto.randomUUID()}`, timestamp: new Date().toISOString(), latency_ms: 90, model: "gpt-4o-mini", provider: "openai", status: 200, tokens: { input: 12, output: 3 } });
/** A workflow of one step under a fresh name, so that each deploy is a new workflow (201). */
const FLOW = () => ({ path: "/api/v1/workflows", body: { name: `matrix-${crypto.randomUUID()}`, steps: [{ name: "only", model: "openai:gpt-4o-mini", userPrompt: "{{input.q}}" }] } });
const AGENT = { name: "Summariser", capability: "summarize", description: "Summarises text", endpoint: "https://agents.example/summarise", protocol: "a2a" };

describe.each(["sqlite", "postgres"] as const)("§7.1 statuses on every hosted route, on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let stripe: FakeStripe;
  let pro: { team: string; key: string; readOnly: string };
  let free: string;
  let limited: string;
  let revoked: string;
  let logId: string;

  const call = (method: string, { path, body }: Call, key: string | undefined) =>
    fetch(`${cloud.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-api-key": key }) },
      // A GET or DELETE carries no body: a refusal must not depend on one.
      body: body === undefined || method === "GET" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });

  /** A fresh key of the pro team (to rotate or revoke). */
  const freshKey = async () => (await createKey(w.relay.relay.store.apiKeys, pro.team, "standard", "matrix")).key.id;
  const freshWebhook = async () => {
    const res = await call("POST", { path: "/api/webhooks", body: { url: HOOK, events: ["relay.completed"] } }, pro.key);
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).webhook.id as string;
  };
  /** A delivery of a fresh endpoint that used up its attempts: the one state a retry accepts. */
  const failedDelivery = async () => {
    const endpoint = await freshWebhook();
    const now = w.relay.relay.clock.now();
    const id = `msg_matrix${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await w.relay.relay.store.webhooks.insertDeliveries([
      { id, endpoint_id: endpoint, team_id: pro.team, event_type: "relay.completed", payload: "{}", status: "failed", attempts: 8, next_attempt_at: now, last_status: 500, last_error: null, created_at: now, updated_at: now },
    ]);
    return `/api/webhooks/${endpoint}/deliveries/${id}/retry`;
  };
  /** A trigger of a freshly deployed workflow, the pro team's Cloud features on. */
  const triggerCall = async (): Promise<Call> => {
    const flow = FLOW();
    expect((await call("POST", flow, pro.key)).status).toBe(201);
    await w.relay.relay.store.accounts.setCloudEnabled(pro.team, true);
    return { path: "/api/v1/webhooks/trigger", body: { workflow: flow.body.name, input: { q: "hi" } } };
  };
  /** A schedule of a freshly deployed workflow (triggerCall turns Cloud features on). */
  const scheduleCall = async (cron = "0 * * * *"): Promise<Call> => ({ path: "/api/v1/schedules", body: { workflow: ((await triggerCall()).body as Json).workflow, cron } });
  const freshSchedule = async (): Promise<string> => {
    const res = await call("POST", await scheduleCall(), pro.key);
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).schedule.id;
  };
  const triggeredRun = async (): Promise<string> => {
    const res = await call("POST", await triggerCall(), pro.key);
    expect(res.status).toBe(202);
    return ((await res.json()) as Json).run.id;
  };

  const CASES: Record<string, Case> = {
    "POST /api/relay": { ok: () => ({ path: "/api/relay", body: { to: "gpt-4o-mini", payload } }), status: 200, bad: () => ({ path: "/api/relay", body: { payload }, parameter: "to" }), readOnly: false },
    "POST /api/register": { ok: () => ({ path: "/api/register", body: AGENT }), status: 201, bad: () => ({ path: "/api/register", body: { ...AGENT, endpoint: 7 }, parameter: "endpoint" }), readOnly: false },
    "GET /api/discover": { ok: () => ({ path: "/api/discover?capability=summarize" }), status: 200, bad: () => ({ path: "/api/discover?limit=many", parameter: "limit" }), readOnly: false },
    "GET /api/keys": { ok: () => ({ path: "/api/keys" }), status: 200, readOnly: true },
    "POST /api/keys": { ok: () => ({ path: "/api/keys", body: { name: "ci" } }), status: 201, bad: () => ({ path: "/api/keys", body: { type: "admin" }, parameter: "type" }), readOnly: false },
    "POST /api/keys/:id/rotate": { ok: async () => ({ path: `/api/keys/${await freshKey()}/rotate` }), status: 201, readOnly: false },
    "DELETE /api/keys/:id": { ok: async () => ({ path: `/api/keys/${await freshKey()}` }), status: 200, readOnly: false },
    "GET /api/logs": { ok: () => ({ path: "/api/logs?limit=5" }), status: 200, bad: () => ({ path: "/api/logs?status=teapot", parameter: "status" }), readOnly: true, plan: "pro" },
    "GET /api/logs/export": { ok: () => ({ path: "/api/logs/export?format=json" }), status: 200, bad: () => ({ path: "/api/logs/export?format=xml", parameter: "format" }), readOnly: true, plan: "maker" },
    "GET /api/logs/:id": { ok: () => ({ path: `/api/logs/${logId}` }), status: 200, readOnly: true, plan: "pro" },
    "GET /api/usage": { ok: () => ({ path: "/api/usage" }), status: 200, bad: () => ({ path: "/api/usage?since=yesterday", parameter: "since" }), readOnly: true, plan: "pro" },
    "POST /api/webhooks": {
      ok: () => ({ path: "/api/webhooks", body: { url: HOOK, events: ["relay.completed"] } }),
      status: 201,
      bad: () => ({ path: "/api/webhooks", body: { url: "ftp://hooks.example/x", events: ["relay.completed"] }, parameter: "url" }),
      readOnly: false,
      plan: "pro",
    },
    "GET /api/webhooks": { ok: () => ({ path: "/api/webhooks" }), status: 200, readOnly: true, plan: "pro" },
    "DELETE /api/webhooks/:id": { ok: async () => ({ path: `/api/webhooks/${await freshWebhook()}` }), status: 200, readOnly: false, plan: "pro" },
    "POST /api/webhooks/:id/rotate-secret": { ok: async () => ({ path: `/api/webhooks/${await freshWebhook()}/rotate-secret` }), status: 200, readOnly: false, plan: "pro" },
    "GET /api/webhooks/:id/deliveries": {
      ok: async () => ({ path: `/api/webhooks/${await freshWebhook()}/deliveries` }),
      status: 200,
      bad: async () => ({ path: `/api/webhooks/${await freshWebhook()}/deliveries?limit=-1`, parameter: "limit" }),
      readOnly: true,
      plan: "pro",
    },
    "POST /api/webhooks/:id/deliveries/:delivery/retry": { ok: async () => ({ path: await failedDelivery() }), status: 202, readOnly: false, plan: "pro" },
    "PUT /api/v1/credentials": { ok: () => STORED_KEY, status: 200, bad: () => ({ ...STORED_KEY, body: { provider: "no-such-vendor", api_key: "sk-matrix-0123456789" }, parameter: "provider" }), readOnly: false },
    "GET /api/v1/credentials": { ok: () => ({ path: "/api/v1/credentials" }), status: 200, readOnly: true },
    "DELETE /api/v1/credentials/:provider": {
      ok: async () => {
        expect((await call("PUT", STORED_KEY, pro.key)).status).toBe(200);
        return { path: "/api/v1/credentials/openai" };
      },
      status: 200,
      readOnly: false,
    },
    "GET /v1/accounts/me": { ok: () => ({ path: "/v1/accounts/me" }), status: 200, readOnly: true },
    "GET /v1/accounts/status": { ok: () => ({ path: "/v1/accounts/status" }), status: 200, readOnly: true },
    "GET /v1/accounts/members": { ok: () => ({ path: "/v1/accounts/members" }), status: 200, readOnly: true },
    "POST /v1/telemetry": {
      ok: () => ({ path: "/v1/telemetry", body: { batch_id: batchId(), outcomes: [OUTCOME] } }),
      status: 200,
      bad: () => ({ path: "/v1/telemetry", body: { batch_id: batchId(), outcomes: [{ ...OUTCOME, bucket: "a prompt" }] }, parameter: "outcomes[0].bucket" }),
      readOnly: false,
    },
    "POST /v1/telemetry/logs": {
      ok: () => ({ path: "/v1/telemetry/logs", body: { batch_id: batchId(), runs: [UPLOADED_RUN()] } }),
      status: 200,
      bad: () => ({ path: "/v1/telemetry/logs", body: { batch_id: batchId(), runs: [{ ...UPLOADED_RUN(), status: "ok" }] }, parameter: "runs[0].status" }),
      readOnly: false,
    },
    "GET /v1/telemetry/stats": { ok: () => ({ path: "/v1/telemetry/stats?days=1" }), status: 200, bad: () => ({ path: "/v1/telemetry/stats?days=0", parameter: "days" }), readOnly: true },
    "GET /v1/telemetry/runs": { ok: () => ({ path: "/v1/telemetry/runs?limit=5" }), status: 200, bad: () => ({ path: "/v1/telemetry/runs?offset=-1", parameter: "offset" }), readOnly: true },
    "GET /v1/telemetry/savings": { ok: () => ({ path: "/v1/telemetry/savings" }), status: 200, bad: () => ({ path: "/v1/telemetry/savings?days=many", parameter: "days" }), readOnly: true },
    "GET /v1/telemetry/health": { ok: () => ({ path: "/v1/telemetry/health" }), status: 200, readOnly: true },
    "GET /v1/status": { ok: () => ({ path: "/v1/status" }), status: 200, readOnly: true },
    "POST /v1/route": { ok: () => ({ path: "/v1/route", body: { tier: "simple", input_tokens: 100 } }), status: 200, bad: () => ({ path: "/v1/route", body: { bucket: "a prompt" }, parameter: "bucket" }), readOnly: false },
    "POST /v1/billing/checkout": { ok: () => CHECKOUT, status: 200, bad: () => ({ ...CHECKOUT, body: { ...CHECKOUT.body, plan: "enterprise" }, parameter: "plan" }), readOnly: false },
    "POST /v1/billing/portal": {
      // The team's first checkout makes its Stripe customer, which the portal needs.
      ok: async () => {
        expect((await call("POST", CHECKOUT, pro.key)).status).toBe(200);
        return { path: "/v1/billing/portal", body: { return_url: "https://app.example/settings" } };
      },
      status: 200,
      bad: () => ({ path: "/v1/billing/portal", body: { return_url: "settings" }, parameter: "return_url" }),
      readOnly: false,
    },
    "POST /api/v1/benchmarks/run": { ok: () => BENCHMARK, status: 202, bad: () => ({ ...BENCHMARK, body: { ...BENCHMARK.body, models: [] }, parameter: "models" }), readOnly: false },
    "GET /api/v1/benchmarks": { ok: () => ({ path: "/api/v1/benchmarks" }), status: 200, bad: () => ({ path: "/api/v1/benchmarks?limit=0", parameter: "limit" }), readOnly: true },
    "GET /api/v1/benchmarks/:id": {
      ok: async () => {
        const res = await call("POST", BENCHMARK, pro.key);
        expect(res.status).toBe(202);
        return { path: `/api/v1/benchmarks/${((await res.json()) as Json).benchmark.id}` };
      },
      status: 200,
      readOnly: true,
    },
    "GET /api/v1/benchmarks/history/:model": {
      ok: () => ({ path: "/api/v1/benchmarks/history/gpt-4o-mini" }),
      status: 200,
      bad: () => ({ path: "/api/v1/benchmarks/history/gpt-4o-mini?offset=-1", parameter: "offset" }),
      readOnly: true,
    },
    "GET /api/v1/benchmarks/comparison": {
      ok: () => ({ path: "/api/v1/benchmarks/comparison?models=gpt-4o-mini" }),
      status: 200,
      bad: () => ({ path: "/api/v1/benchmarks/comparison", parameter: "models" }),
      readOnly: true,
    },
    "POST /api/v1/workflows": { ok: () => FLOW(), status: 201, bad: () => ({ ...FLOW(), body: { name: "matrix", steps: "none" }, parameter: "steps" }), readOnly: false },
    "GET /api/v1/workflows": { ok: () => ({ path: "/api/v1/workflows" }), status: 200, readOnly: true },
    "POST /api/v1/webhooks/trigger": { ok: () => triggerCall(), status: 202, bad: () => ({ path: "/api/v1/webhooks/trigger", body: { workflow: 7 }, parameter: "workflow" }), readOnly: false },
    "GET /api/v1/webhooks/runs": { ok: () => ({ path: "/api/v1/webhooks/runs" }), status: 200, bad: () => ({ path: "/api/v1/webhooks/runs?limit=0", parameter: "limit" }), readOnly: true },
    "GET /api/v1/webhooks/runs/:id": { ok: async () => ({ path: `/api/v1/webhooks/runs/${await triggeredRun()}` }), status: 200, readOnly: true },
    "GET /v1/debug/runs": { ok: () => ({ path: "/v1/debug/runs" }), status: 200, bad: () => ({ path: "/v1/debug/runs?offset=-1", parameter: "offset" }), readOnly: true },
    "GET /v1/debug/runs/:runId": { ok: async () => ({ path: `/v1/debug/runs/${await triggeredRun()}` }), status: 200, readOnly: true },
    "GET /v1/debug/workflows": { ok: () => ({ path: "/v1/debug/workflows" }), status: 200, readOnly: true },
    "POST /api/v1/schedules": { ok: () => scheduleCall(), status: 201, bad: async () => ({ ...(await scheduleCall("61 * * * *")), parameter: "cron" }), readOnly: false },
    "GET /api/v1/schedules": { ok: () => ({ path: "/api/v1/schedules" }), status: 200, bad: () => ({ path: "/api/v1/schedules?limit=0", parameter: "limit" }), readOnly: true },
    "GET /api/v1/schedules/:id": { ok: async () => ({ path: `/api/v1/schedules/${await freshSchedule()}` }), status: 200, readOnly: true },
    "PATCH /api/v1/schedules/:id": {
      ok: async () => ({ path: `/api/v1/schedules/${await freshSchedule()}`, body: { paused: true } }),
      status: 200,
      bad: async () => ({ path: `/api/v1/schedules/${await freshSchedule()}`, body: { timezone: "Nowhere/Else" }, parameter: "timezone" }),
      readOnly: false,
    },
    "DELETE /api/v1/schedules/:id": { ok: async () => ({ path: `/api/v1/schedules/${await freshSchedule()}` }), status: 200, readOnly: false },
  };

  /**
   * The key-guarded routes the cloud listener serves, as METHOD /path with Elysia's :params: those its
   * OpenAPI document gives the x-api-key header (tests/cloud/openapi.test.ts holds the document to the
   * registered routes, and public routes answer without a key).
   */
  let guardedList: string[];
  const guardedRoutes = () => guardedList;
  async function readGuardedRoutes(): Promise<string[]> {
    const doc = (await (await fetch(`${cloud.url}/openapi.json`)).json()) as Json;
    return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (op.parameters ?? []).some((p: Json) => p.in === "header" && p.name === "x-api-key"))
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
  }
  /** A path of the route for refusals that come before the route's own work (ids need not exist). */
  const pathOf = (route: string) => route.split(" ")[1]!.replace(/:(\w+)/g, (_, name: string) => `${name}_x`);
  const methodOf = (route: string) => route.split(" ")[0]!;

  async function expectError(res: Response, status: number, code?: string): Promise<Json> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: expect.objectContaining({ code: code ?? expect.any(String), message: expect.any(String) }), request_id: expect.stringMatching(/^req_/) });
    expect(res.headers.get("x-svc-request-id")).toBe(body.request_id);
    expect(JSON.stringify(body)).not.toMatch(/ at \S+:\d+|SELECT |relation |no such table|\/tmp\/|node_modules/i);
    return body;
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_matrix");
    stripe = await startFakeStripe();
    stripe.addPrice("price_pro_matrix");
    const billing = { stripeApiBase: stripe.url, secretKey: stripe.secretKey, webhookSecret: "whsec_matrix", prices: { pro: "price_pro_matrix" } };
    w = await startWorld({ config: { cloud: { allowPrivateNetworks: true, billing }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    guardedList = await readGuardedRoutes();
    const store = w.relay.relay.store;
    const p = await createTeam(store, "Pro", "pro");
    pro = { team: p.team.id, key: p.secret, readOnly: (await createKey(store.apiKeys, p.team.id, "read_only", "viewer")).secret };
    free = (await createTeam(store, "Free", "free")).secret;
    limited = (await createTeam(store, "Limited", "free")).secret;
    const gone = await createTeam(store, "Gone", "pro");
    await store.apiKeys.revokeKey(gone.key.id, new Date().toISOString());
    revoked = gone.secret;
    const relayed = await call("POST", CASES["POST /api/relay"]!.ok() as Call, pro.key);
    expect(relayed.status).toBe(200);
    logId = ((await (await call("GET", { path: "/api/logs?limit=1" }, pro.key)).json()) as Json).data[0].id;
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await stripe?.close();
    await db?.drop();
  });

  test("every key-guarded route has a row here", () => {
    expect(guardedRoutes()).toContain("POST /api/relay");
    const routes = guardedRoutes();
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((r) => !CASES[r])).toEqual([]);
  });

  test("200: each route serves a pro team's standard key", async () => {
    for (const [route, c] of Object.entries(CASES)) {
      const res = await call(methodOf(route), await c.ok(), pro.key);
      expect({ route, status: res.status }).toEqual({ route, status: c.status });
      expect(res.headers.get("x-ratelimit-limit")).toBe("3000");
    }
  });

  test("400: each route that takes input names the invalid parameter with a type name", async () => {
    for (const [route, c] of Object.entries(CASES)) {
      if (!c.bad) continue;
      const bad = await c.bad();
      const body = await expectError(await call(methodOf(route), bad, pro.key), 400);
      expect({ route, parameter: body.error.details?.parameter, expected: typeof body.error.details?.expected }).toEqual({ route, parameter: bad.parameter, expected: "string" });
    }
    // A body that is not JSON is a 400 on every route that reads one.
    for (const route of Object.keys(CASES).filter((r) => methodOf(r) === "POST" && CASES[r]!.bad)) {
      await expectError(await call("POST", { path: (await CASES[route]!.bad!()).path, body: "{not json" }, pro.key), 400);
    }
  });

  test("401: a missing, an unknown and a revoked key, on every route", async () => {
    for (const route of guardedRoutes()) {
      const target = { path: pathOf(route), body: methodOf(route) === "POST" ? {} : undefined };
      await expectError(await call(methodOf(route), target, undefined), 401, "missing_api_key");
      await expectError(await call(methodOf(route), target, "rk_live_not_a_key_at_all"), 401, "invalid_api_key");
      await expectError(await call(methodOf(route), target, revoked), 401, "invalid_api_key");
    }
  });

  test("403: a read-only key on a core route; a plan without the route's feature", async () => {
    for (const [route, c] of Object.entries(CASES)) {
      if (!c.readOnly) await expectError(await call(methodOf(route), { path: pathOf(route), body: {} }, pro.readOnly), 403, "permission_denied");
      if (c.plan) {
        const body = await expectError(await call(methodOf(route), await c.ok(), free), 403, "plan_upgrade_required");
        expect(body.error.message).toContain(c.plan);
      }
    }
  });

  test("429: once a free team's minute is used up, every route refuses with Retry-After and the rate-limit headers", async () => {
    const first = await call("GET", { path: "/api/keys" }, limited);
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    const left = Number(first.headers.get("x-ratelimit-remaining"));
    for (let i = 0; i < left; i++) expect((await call("GET", { path: "/api/keys" }, limited)).status).toBe(200);
    for (const route of guardedRoutes()) {
      const res = await call(methodOf(route), { path: pathOf(route), body: {} }, limited);
      await expectError(res, 429, "rate_limit_exceeded");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    }
  });

  test("500: the store breaks under the running server; every route answers the hosted 500, then serves again once it is mended", async () => {
    const breakStore = driver === "postgres" ? postgresTable(db!.url) : sqliteTable(join(w.relay.home, "data", "relay.db"));
    await breakStore("ALTER TABLE api_keys RENAME TO api_keys_lost");
    try {
      for (const route of guardedRoutes()) {
        await expectError(await call(methodOf(route), { path: pathOf(route), body: {} }, pro.key), 500, "internal_error");
      }
    } finally {
      await breakStore("ALTER TABLE api_keys_lost RENAME TO api_keys");
    }
    expect((await call("GET", { path: "/api/keys" }, pro.key)).status).toBe(200);
  });
});

/** Runs one statement on the Postgres database from a connection of the test's own. */
function postgresTable(url: string) {
  return async (statement: string) => {
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe(statement);
    await sql.close();
  };
}

/** Runs one statement on the SQLite file from a connection of the test's own. */
function sqliteTable(file: string) {
  return async (statement: string) => {
    const db = new Database(file);
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(statement);
    db.close();
  };
}
