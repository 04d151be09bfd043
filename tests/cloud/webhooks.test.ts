// Outbound webhooks over real HTTP on the `relay cloud` listener, on SQLite and on Postgres: a pro
// team registers a local receiver, relayed calls (one served by a fallback, one streamed) are
// delivered and verified by the `standardwebhooks` library (a tampered body fails it), a receiver's
// 500 is retried once the clock passed the backoff with the attempts listed, the schedule's end
// (failed) and a manual retry, 410 Gone disabling an endpoint, the rate-limit and budget events,
// secrets shown once and rotated, key permissions and plans, field validation, the SSRF guard when
// private networks are not allowed, removal stopping deliveries, pending deliveries sent by the next
// process on the same database, and two instances on one database sending a delivery once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { PLANS } from "../../src/core/tenancy/plans.ts";
import { DELIVERY_RETENTION_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../../src/core/webhooks/dispatcher.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, eventually, messagesBody, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const ROUTING = { strategies: { fallback: { chains: { "claude-haiku-4-5": ["gpt-4o-mini"] } } } };
const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");
const { model: __, ...messagesPayload } = messagesBody("claude-haiku-4-5");

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A local webhook receiver: what it got, and the statuses it answers with next (then 200). */
function startReceiver() {
  const got: Received[] = [];
  const answers: number[] = [];
  const state = { delayMs: 0 };
  const listener = listen({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      got.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      if (state.delayMs) await Bun.sleep(state.delayMs);
      return new Response(null, { status: answers.shift() ?? 200 });
    },
    maxRequestBodySize: 1 << 20,
    idleTimeoutSec: 10,
  });
  return {
    url: `${listener.url}/hook`,
    got,
    answers,
    /** How long it takes to answer. */
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    stop: () => listener.stop(100),
  };
}

type Receiver = ReturnType<typeof startReceiver>;

/** A world with the cloud listener (which starts the webhook dispatcher) beside it. */
async function startCloud(config: Record<string, unknown>, home?: string): Promise<{ w: World; cloud: Listener }> {
  const w = await startWorld({ config, home });
  const cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  return { w, cloud };
}

const api = (cloud: Listener, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${cloud.url}${path}`, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

const verified = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers) as any;

describe.each(["sqlite", "postgres"] as const)("webhooks on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let receiver: Receiver;
  const storeConfig = () => (db ? { store: { driver: "postgres", postgresUrl: db.url } } : {});
  const dispatcher = () => w.relay.relay.webhookDispatcher;

  /** A new pro team with an endpoint for `events` at the receiver: its key, id and secret. */
  async function proEndpoint(events: string[], plan: "pro" = "pro") {
    const { team, secret: key } = await createTeam(w.relay.relay.store, `Hooks ${events.join(" ")}`, plan);
    const res = await api(cloud, key, "POST", "/api/webhooks", { url: receiver.url, events, description: "test receiver" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    return { team, key, id: body.webhook.id as string, secret: body.secret as string, body };
  }

  const relayCall = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${cloud.url}/api/relay`, { method: "POST", body: JSON.stringify(body), headers: { "x-api-key": key, "content-type": "application/json", ...headers } });

  const deliveries = async (key: string, id: string, query = "") => (await (await api(cloud, key, "GET", `/api/webhooks/${id}/deliveries${query}`)).json()) as any;

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_webhooks");
    ({ w, cloud } = await startCloud({ routing: ROUTING, cloud: { allowPrivateNetworks: true }, ...storeConfig() }));
    receiver = startReceiver();
  });
  afterEach(async () => {
    await dispatcher().flush();
    receiver.got.length = 0;
    receiver.answers.length = 0;
    w.openai.reset();
    w.anthropic.reset();
  });
  afterAll(async () => {
    await receiver?.stop();
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("a relayed call served by a fallback is delivered as relay.completed and relay.fallback_used, verified by standardwebhooks", async () => {
    const { key, secret, body } = await proEndpoint(["relay.completed", "relay.fallback_used"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.webhook).toEqual({ id: expect.stringMatching(/^we_/), url: receiver.url, events: ["relay.completed", "relay.fallback_used"], description: "test receiver", enabled: true, created_at: expect.any(String) });
    w.anthropic.enqueue({ status: 500, errorMessage: "the fake vendor broke" });
    const relayed = (await (await relayCall(key, { to: "claude-haiku-4-5", payload: messagesPayload })).json()) as any;
    expect(relayed.fallback_used).toBe(true);

    const got = await eventually(() => (receiver.got.length >= 2 ? receiver.got : undefined), "two deliveries");
    const payloads = got.map((r) => verified(secret, r));
    const byType = Object.fromEntries(payloads.map((p) => [p.type, p]));
    expect(Object.keys(byType).sort()).toEqual(["relay.completed", "relay.fallback_used"]);
    expect(byType["relay.completed"]).toEqual({
      type: "relay.completed",
      timestamp: expect.any(String),
      data: expect.objectContaining({ relay_id: relayed.relay_id, request_id: expect.stringMatching(/^req_/), requested_model: "claude-haiku-4-5", model: "gpt-4o-mini", provider: "openai", status_code: 200, stream: false, fallback_used: true }),
    });
    expect(byType["relay.fallback_used"].data).toMatchObject({ relay_id: relayed.relay_id, requested_model: "claude-haiku-4-5", model: "gpt-4o-mini", fallback_events: expect.arrayContaining([expect.objectContaining({ type: "fallback", model: "gpt-4o-mini" })]) });
    for (const r of got) {
      expect(r.headers["webhook-id"]).toMatch(/^msg_/);
      expect(r.headers["webhook-timestamp"]).toMatch(/^\d+$/);
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.headers["content-type"]).toBe("application/json");
    }
    // Independent checks fail on a changed body, another secret, or another id.
    const first = got[0]!;
    expect(() => new Webhook(secret).verify(first.body.replace("relay.", "relay_"), first.headers)).toThrow();
    expect(() => new Webhook(`whsec_${btoa("x".repeat(32))}`).verify(first.body, first.headers)).toThrow();
    expect(() => new Webhook(secret).verify(first.body, { ...first.headers, "webhook-id": "msg_other" })).toThrow();
  });

  test("a streamed relay is delivered as relay.completed once the stream ended", async () => {
    const { key, secret } = await proEndpoint(["relay.completed"]);
    w.openai.enqueue({ text: "one two three", textChunks: 3 });
    const res = await relayCall(key, { to: "gpt-4o-mini", payload: { ...chatPayload, stream: true } }, { accept: "text/event-stream" });
    await res.text();
    const [r] = await eventually(() => (receiver.got.length >= 1 ? receiver.got : undefined), "the stream's delivery");
    expect(verified(secret, r!)).toMatchObject({ type: "relay.completed", data: { stream: true, status_code: 200, outcome: "ok", model: "gpt-4o-mini" } });
  });

  test("a receiver's 500 is retried once the backoff passed, and the deliveries list both attempts", async () => {
    const { key, id, secret } = await proEndpoint(["relay.completed"]);
    receiver.answers.push(500);
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    await eventually(async () => ((await deliveries(key, id)).deliveries[0]?.attempts === 1 ? true : undefined), "the first attempt");
    let [d] = (await deliveries(key, id)).deliveries;
    expect(d).toMatchObject({ status: "pending", attempts: 1, last_status: 500, last_error: expect.stringContaining("500") });
    expect(Date.parse(d.next_attempt_at) - Date.parse(d.attempt_log[0].at)).toBe(RETRY_DELAYS_MS[0]);

    // Not due yet: nothing is sent.
    w.clock.advance(RETRY_DELAYS_MS[0] - 1000);
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(1);
    w.clock.advance(1000);
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(2);
    // The retry keeps the webhook-id, with a new timestamp, and verifies.
    expect(receiver.got[1]!.headers["webhook-id"]).toBe(receiver.got[0]!.headers["webhook-id"]);
    expect(Number(receiver.got[1]!.headers["webhook-timestamp"]) - Number(receiver.got[0]!.headers["webhook-timestamp"])).toBe(RETRY_DELAYS_MS[0] / 1000);
    expect(verified(secret, receiver.got[1]!).type).toBe("relay.completed");

    const page = await deliveries(key, id);
    expect(page).toMatchObject({ total: 1, limit: 50, offset: 0 });
    [d] = page.deliveries;
    expect(d).toMatchObject({ id: receiver.got[0]!.headers["webhook-id"], event_type: "relay.completed", status: "succeeded", attempts: 2, next_attempt_at: null, last_status: 200, last_error: null });
    expect(d.payload.type).toBe("relay.completed");
    expect(d.attempt_log.map((a: any) => [a.attempt, a.response_status])).toEqual([[1, 500], [2, 200]]);
  });

  test("a receiver answering 410 Gone disables its endpoint: the delivery fails and nothing more is queued", async () => {
    const { key, id } = await proEndpoint(["relay.completed"]);
    receiver.answers.push(410);
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    await eventually(async () => ((await deliveries(key, id)).deliveries[0]?.status === "failed" ? true : undefined), "the failed delivery");
    const listed = (await (await api(cloud, key, "GET", "/api/webhooks")).json()) as any;
    expect(listed.webhooks).toEqual([expect.objectContaining({ id, enabled: false })]);
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(1);
    expect((await deliveries(key, id)).total).toBe(1);
  });

  test("deliveries are listed newest first and paged", async () => {
    const { key, id } = await proEndpoint(["relay.completed"]);
    for (let i = 0; i < 3; i++) {
      await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
      w.clock.advance(1);
    }
    await eventually(() => (receiver.got.length >= 3 ? true : undefined), "three deliveries");
    const all = await deliveries(key, id);
    expect(all.total).toBe(3);
    const created = all.deliveries.map((d: any) => Date.parse(d.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const second = await deliveries(key, id, "?limit=1&offset=1");
    expect(second).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(second.deliveries.map((d: any) => d.id)).toEqual([all.deliveries[1].id]);
    expect((await api(cloud, key, "GET", `/api/webhooks/${id}/deliveries?limit=x`)).status).toBe(400);
  });

  test("the plan's rate limit raises one limit.rate_exceeded a minute", async () => {
    const { team, key, secret } = await proEndpoint(["limit.rate_exceeded"]);
    const limit = PLANS.pro.requestsPerMinute;
    for (let i = 0; i < limit; i++) await w.relay.relay.rate.acquire(`team:${team.id}`, limit);
    expect((await api(cloud, key, "GET", "/api/webhooks")).status).toBe(429);
    expect((await api(cloud, key, "GET", "/api/webhooks")).status).toBe(429);
    await eventually(() => (receiver.got.length >= 1 ? true : undefined), "the limit event");
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(1);
    expect(verified(secret, receiver.got[0]!)).toMatchObject({ type: "limit.rate_exceeded", data: { plan: "pro", limit_per_minute: limit, retry_after_sec: expect.any(Number) } });
  });

  test("a relay a budget refuses raises budget.exceeded", async () => {
    const { key, secret } = await proEndpoint(["budget.exceeded", "relay.completed"]);
    const relay = w.relay.relay;
    const loaded = relay.loaded;
    relay.applyConfig({ ...loaded, config: { ...loaded.config, limits: { ...loaded.config.limits, dailyUsd: 0.000001 } } });
    try {
      const res = await relayCall(key, { to: "claude-haiku-4-5", payload: messagesPayload });
      expect(res.status).toBe(429);
      const refused = (await res.json()) as any;
      expect(refused.error.code).toBe("budget_exceeded");
      const [r] = await eventually(() => (receiver.got.length >= 1 ? receiver.got : undefined), "the budget event");
      await dispatcher().flush();
      expect(receiver.got).toHaveLength(1);
      expect(verified(secret, r!)).toMatchObject({
        type: "budget.exceeded",
        data: { relay_id: expect.stringMatching(/^evt_rel_/), request_id: refused.request_id, requested_model: "claude-haiku-4-5", message: expect.stringContaining("daily budget") },
      });
    } finally {
      relay.applyConfig(loaded);
    }
  });

  test("the list shows no secret; a read-only key lists but cannot manage; a rotation signs with both secrets", async () => {
    const { team, key, id, secret } = await proEndpoint(["relay.completed"]);
    const listed = (await (await api(cloud, key, "GET", "/api/webhooks")).json()) as any;
    expect(listed.webhooks).toEqual([expect.objectContaining({ id, url: receiver.url })]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");

    const ro = await createKey(w.relay.relay.store.apiKeys, team.id, "read_only", "viewer");
    expect((await api(cloud, ro.secret, "GET", "/api/webhooks")).status).toBe(200);
    expect((await api(cloud, ro.secret, "GET", `/api/webhooks/${id}/deliveries`)).status).toBe(200);
    const refused = await api(cloud, ro.secret, "POST", "/api/webhooks", { url: receiver.url, events: ["relay.completed"] });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe("permission_denied");
    expect((await api(cloud, ro.secret, "DELETE", `/api/webhooks/${id}`)).status).toBe(403);

    const rotated = (await (await api(cloud, key, "POST", `/api/webhooks/${id}/rotate-secret`)).json()) as any;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    const [r] = await eventually(() => (receiver.got.length >= 1 ? receiver.got : undefined), "a delivery");
    expect(r!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verified(rotated.secret, r!).type).toBe("relay.completed");
    expect(verified(secret, r!).type).toBe("relay.completed");
    // Both secrets are stored sealed (src/core/webhooks/secrets.ts), neither in clear.
    const stored = await w.relay.relay.store.webhooks.getEndpoint(id);
    for (const s of [stored!.secret, stored!.previous_secret!]) expect(s).toMatch(/^v1:[0-9a-f]{12}:/);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6, 30));
    expect(JSON.stringify(stored)).not.toContain(rotated.secret.slice(6, 30));
  });

  test("a removed endpoint gets nothing more, pending retries included", async () => {
    const { key, id } = await proEndpoint(["relay.completed"]);
    receiver.answers.push(503);
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    await eventually(() => (receiver.got.length >= 1 ? true : undefined), "the first attempt");
    const removed = await api(cloud, key, "DELETE", `/api/webhooks/${id}`);
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as any)).toMatchObject({ webhook: { id }, deleted: true });
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    w.clock.advance(RETRY_DELAYS_MS[0]);
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(1);
    expect(await (await api(cloud, key, "GET", "/api/webhooks")).json()).toEqual({ webhooks: [] });
    expect((await api(cloud, key, "DELETE", `/api/webhooks/${id}`)).status).toBe(404);
    expect((await api(cloud, key, "GET", `/api/webhooks/${id}/deliveries`)).status).toBe(404);
  });

  test("free and maker teams are refused with 403 plan_upgrade_required, and get no deliveries", async () => {
    for (const plan of ["free", "maker"] as const) {
      const { secret: key } = await createTeam(w.relay.relay.store, `Plan ${plan}`, plan);
      for (const [method, path] of [["POST", "/api/webhooks"], ["GET", "/api/webhooks"], ["GET", "/api/webhooks/we_x/deliveries"]] as const) {
        const res = await api(cloud, key, method, path, method === "POST" ? { url: receiver.url, events: ["relay.completed"] } : undefined);
        expect(res.status).toBe(403);
        const body = (await res.json()) as any;
        expect(body).toEqual({ error: expect.objectContaining({ code: "plan_upgrade_required", message: expect.stringContaining("the pro plan") }), request_id: expect.stringMatching(/^req_/) });
      }
      await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    }
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(0);
  });

  test("an invalid url or events list is a 400 naming the parameter", async () => {
    const { secret: key } = await createTeam(w.relay.relay.store, "Validators", "pro");
    const cases: [unknown, string, string][] = [
      [{ events: ["relay.completed"] }, "url", "string"],
      [{ url: "ftp://example.com/x", events: ["relay.completed"] }, "url", "string"],
      [{ url: "not a url", events: ["relay.completed"] }, "url", "string"],
      [{ url: receiver.url }, "events", "array"],
      [{ url: receiver.url, events: [] }, "events", "array"],
      [{ url: receiver.url, events: "relay.completed" }, "events", "array"],
      [{ url: receiver.url, events: ["relay.completed", "relay.exploded"] }, "events[1]", "string"],
      [{ url: receiver.url, events: ["relay.completed"], description: 7 }, "description", "string"],
    ];
    for (const [body, parameter, expected] of cases) {
      const res = await api(cloud, key, "POST", "/api/webhooks", body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: "invalid_request", details: { parameter, expected } });
    }
    expect(((await (await api(cloud, key, "GET", "/api/webhooks")).json()) as any).webhooks).toEqual([]);
  });

  test("without cloud.allowPrivateNetworks a private URL is refused, at registration and before each delivery", async () => {
    const { key, id } = await proEndpoint(["relay.completed"]);
    const relay = w.relay.relay;
    const loaded = relay.loaded;
    relay.applyConfig({ ...loaded, config: { ...loaded.config, cloud: { ...loaded.config.cloud, allowPrivateNetworks: false } } });
    try {
      const refused = await api(cloud, key, "POST", "/api/webhooks", { url: receiver.url, events: ["relay.completed"] });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as any).error).toMatchObject({ code: "unsafe_url", details: { parameter: "url" } });
      await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
      await eventually(async () => ((await deliveries(key, id)).deliveries[0]?.attempts === 1 ? true : undefined), "the refused attempt");
      const [d] = (await deliveries(key, id)).deliveries;
      expect(d).toMatchObject({ status: "pending", last_status: null, last_error: expect.stringContaining("non-public address") });
      expect(receiver.got).toHaveLength(0);
    } finally {
      relay.applyConfig(loaded);
      // Its pending retry would reach the receiver in a later test.
      await api(cloud, key, "DELETE", `/api/webhooks/${id}`);
    }
  });

  // Last: it moves the clock days on, and later deliveries would carry timestamps standardwebhooks rejects as too new.
  test("after the last scheduled attempt a delivery is failed; a manual retry sends it once more; finished ones are deleted after the retention", async () => {
    const { key, id } = await proEndpoint(["relay.completed"]);
    receiver.answers.push(...Array(MAX_ATTEMPTS).fill(500));
    await relayCall(key, { to: "gpt-4o-mini", payload: chatPayload });
    await eventually(() => (receiver.got.length >= 1 ? true : undefined), "the first attempt");
    await dispatcher().flush();
    for (const delay of RETRY_DELAYS_MS) {
      w.clock.advance(delay);
      await dispatcher().flush();
    }
    expect(receiver.got).toHaveLength(MAX_ATTEMPTS);
    let [d] = (await deliveries(key, id)).deliveries;
    expect(d).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, next_attempt_at: null, last_status: 500 });
    w.clock.advance(RETRY_DELAYS_MS.at(-1)!);
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(MAX_ATTEMPTS);

    receiver.answers.length = 0;
    const retried = await api(cloud, key, "POST", `/api/webhooks/${id}/deliveries/${d.id}/retry`);
    expect(retried.status).toBe(202);
    await dispatcher().flush();
    expect(receiver.got).toHaveLength(MAX_ATTEMPTS + 1);
    [d] = (await deliveries(key, id)).deliveries;
    expect(d).toMatchObject({ status: "succeeded", attempts: MAX_ATTEMPTS + 1, last_status: 200 });
    const again = await api(cloud, key, "POST", `/api/webhooks/${id}/deliveries/${d.id}/retry`);
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).error.code).toBe("delivery_not_failed");
    expect((await api(cloud, key, "POST", `/api/webhooks/${id}/deliveries/msg_nope/retry`)).status).toBe(404);

    // Finished deliveries are deleted once the retention passed.
    w.clock.advance(DELIVERY_RETENTION_MS - 60_000);
    await dispatcher().flush();
    expect((await deliveries(key, id)).total).toBe(1);
    w.clock.advance(2 * 3_600_000);
    await dispatcher().flush();
    expect((await deliveries(key, id)).total).toBe(0);
  });
});

describe.each(["sqlite", "postgres"] as const)("webhook deliveries across a restart on %s", (driver) => {
  test("a delivery pending when Relay stopped is sent by the next process on the same database", async () => {
    const db = driver === "postgres" ? await postgresDatabase("relay_webhooks_restart") : undefined;
    const home = mkdtempSync(join(tmpdir(), "relay-webhooks-"));
    const receiver = startReceiver();
    const config = { cloud: { allowPrivateNetworks: true }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) };
    try {
      let { w, cloud } = await startCloud(config, home);
      const { secret: key } = await createTeam(w.relay.relay.store, "Restarters", "pro");
      const created = (await (await api(cloud, key, "POST", "/api/webhooks", { url: receiver.url, events: ["relay.completed"] })).json()) as any;
      receiver.answers.push(503);
      await relayOnce(cloud, key);
      await eventually(() => (receiver.got.length >= 1 ? true : undefined), "the first attempt");
      await w.relay.relay.webhookDispatcher.flush();
      await cloud.stop(100);
      await w.stop();

      ({ w, cloud } = await startCloud(config, home));
      try {
        w.clock.advance(RETRY_DELAYS_MS[0] + 1000);
        await w.relay.relay.webhookDispatcher.flush();
        expect(receiver.got).toHaveLength(2);
        expect(receiver.got[1]!.headers["webhook-id"]).toBe(receiver.got[0]!.headers["webhook-id"]);
        expect(new Webhook(created.secret).verify(receiver.got[1]!.body, receiver.got[1]!.headers)).toMatchObject({ type: "relay.completed" });
        const [d] = ((await (await api(cloud, key, "GET", `/api/webhooks/${created.webhook.id}/deliveries`)).json()) as any).deliveries;
        expect(d).toMatchObject({ status: "succeeded", attempts: 2 });
      } finally {
        await cloud.stop(100);
        await w.stop();
      }
    } finally {
      await receiver.stop();
      await db?.drop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe.each(["sqlite", "postgres"] as const)("two instances on one %s database", (driver) => {
  test("a due delivery is claimed by one instance only, so it is sent once", async () => {
    const db = driver === "postgres" ? await postgresDatabase("relay_webhooks_pair") : undefined;
    const home = mkdtempSync(join(tmpdir(), "relay-webhooks-"));
    const receiver = startReceiver();
    const config = { cloud: { allowPrivateNetworks: true }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) };
    const [a, b] = [await startCloud(config, home), await startCloud(config, home)];
    try {
      const { secret: key } = await createTeam(a.w.relay.relay.store, "Pair", "pro");
      await api(a.cloud, key, "POST", "/api/webhooks", { url: receiver.url, events: ["relay.completed"] });
      receiver.answers.push(503);
      await relayOnce(a.cloud, key);
      await eventually(() => (receiver.got.length >= 1 ? true : undefined), "the first attempt");
      await a.w.relay.relay.webhookDispatcher.flush();
      // Both see the retry due at once; the receiver is slow, so both polls run before either attempt ends.
      receiver.delayMs = 300;
      for (const { w } of [a, b]) w.clock.advance(RETRY_DELAYS_MS[0] + 1000);
      await Promise.all([a.w.relay.relay.webhookDispatcher.flush(), b.w.relay.relay.webhookDispatcher.flush()]);
      expect(receiver.got).toHaveLength(2);
    } finally {
      for (const { w, cloud } of [a, b]) {
        await cloud.stop(100);
        await w.stop();
      }
      await receiver.stop();
      await db?.drop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

async function relayOnce(cloud: Listener, key: string): Promise<void> {
  const res = await fetch(`${cloud.url}/api/relay`, { method: "POST", body: JSON.stringify({ to: "gpt-4o-mini", payload: chatPayload }), headers: { "x-api-key": key, "content-type": "application/json" } });
  expect(res.status).toBe(200);
}
