// The hosted API's guard, plans and error shape over real HTTP on the `relay cloud` listener, on
// SQLite and on Postgres: x-api-key missing, unknown or revoked (401), a read-only key on a
// standard-only route (403), rotation with no gap, the plan's rate limit with its headers (429, on a
// ManualClock), and 404 / 413 / 400 in the spec's error shape with the request id in a header.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { PLANS } from "../../src/core/tenancy/plans.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

const JSON_TYPE = { "content-type": "application/json" };

/** A hosted error: the spec's shape, with the same req_ id in the body and the header. */
async function expectHostedError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as any;
  expect(body).toEqual({ error: { code, message: expect.any(String), ...(body.error.details ? { details: body.error.details } : {}) }, request_id: expect.stringMatching(/^req_/) });
  expect(res.headers.get("x-svc-request-id")).toBe(body.request_id);
  return body;
}

describe.each(["sqlite", "postgres"] as const)("the hosted guard on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  let cloud: Listener;
  const clock = new ManualClock(Date.now());
  const api = (path: string, key?: string, init: RequestInit = {}) =>
    fetch(`${cloud.url}${path}`, { ...init, headers: { ...(key ? { "x-api-key": key } : {}), ...(init.body !== undefined ? JSON_TYPE : {}), ...(init.headers as Record<string, string>) } });

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_auth");
    r = await startRelay({ clock, config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  test("a missing, unknown or revoked key is a 401; a valid one lists its team's keys without secrets", async () => {
    const { team, key, secret } = await createTeam(r.relay.store, "Acme", "pro");
    await expectHostedError(await api("/api/keys"), 401, "missing_api_key");
    await expectHostedError(await api("/api/keys", `${secret}x`), 401, "invalid_api_key");
    await expectHostedError(await api("/api/keys", "rk_live_nonsense"), 401, "invalid_api_key");

    const ok = await api("/api/keys", secret);
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(JSON.parse(text)).toEqual({ keys: [{ id: key.id, team_id: team.id, type: "standard", name: "default", prefix: key.prefix, created_at: key.created_at, revoked_at: null }] });
    expect(text).not.toContain(secret);
    expect(text).not.toContain(key.hash);

    await r.relay.store.apiKeys.revokeKey(key.id, new Date().toISOString());
    const revoked = await expectHostedError(await api("/api/keys", secret), 401, "invalid_api_key");
    expect(revoked.error.message).toContain("revoked");
  });

  test("a read-only key may list keys but not create, rotate or revoke them (403)", async () => {
    const { key, secret } = await createTeam(r.relay.store, "Readers", "pro");
    const ro = await createKey(r.relay.store.apiKeys, key.team_id, "read_only", "dashboards");
    expect((await api("/api/keys", ro.secret)).status).toBe(200);
    await expectHostedError(await api("/api/keys", ro.secret, { method: "POST", body: "{}" }), 403, "permission_denied");
    await expectHostedError(await api(`/api/keys/${key.id}/rotate`, ro.secret, { method: "POST", body: "{}" }), 403, "permission_denied");
    await expectHostedError(await api(`/api/keys/${key.id}`, ro.secret, { method: "DELETE" }), 403, "permission_denied");
    expect((await r.relay.store.apiKeys.getKey(key.id))!.revoked_at).toBeNull();
    // The standard key of the same team may.
    const made = await api("/api/keys", secret, { method: "POST", body: JSON.stringify({ type: "read_only", name: "ci" }) });
    expect(made.status).toBe(201);
    const body = (await made.json()) as any;
    expect(body.key).toMatchObject({ team_id: key.team_id, type: "read_only", name: "ci", revoked_at: null });
    expect(body.api_key).toMatch(/^rk_live_/);
    expect((await api("/api/keys", body.api_key)).status).toBe(200);
  });

  test("a rotated key and its successor both work until the old one is revoked; other teams' keys are not found", async () => {
    const { key: old, secret: oldSecret } = await createTeam(r.relay.store, "Rotators", "pro");
    const other = await createTeam(r.relay.store, "Others", "pro");
    const rotated = await api(`/api/keys/${old.id}/rotate`, oldSecret, { method: "POST", body: "{}" });
    expect(rotated.status).toBe(201);
    const { key: next, api_key: nextSecret } = (await rotated.json()) as any;
    expect(next).toMatchObject({ team_id: old.team_id, type: "standard" });
    expect((await api("/api/keys", oldSecret)).status).toBe(200);
    expect((await api("/api/keys", nextSecret)).status).toBe(200);

    await expectHostedError(await api(`/api/keys/${old.id}`, other.secret, { method: "DELETE" }), 404, "not_found");
    const revoked = await api(`/api/keys/${old.id}`, nextSecret, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as any).key.revoked_at).toEqual(expect.any(String));
    // At once: the very next request with the old key is refused.
    await expectHostedError(await api("/api/keys", oldSecret), 401, "invalid_api_key");
    expect((await api("/api/keys", nextSecret)).status).toBe(200);
    await expectHostedError(await api(`/api/keys/${old.id}/rotate`, nextSecret, { method: "POST", body: "{}" }), 409, "key_revoked");
  });

  test("the plan's requests per minute, per team: rate headers on every answer, then 429 with Retry-After", async () => {
    const { team, secret } = await createTeam(r.relay.store, "Busy", "free");
    const neighbour = await createTeam(r.relay.store, "Quiet", "free");
    const limit = PLANS.free.requestsPerMinute;
    for (let i = 1; i <= limit; i++) {
      const res = await api("/api/keys", secret);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(limit - i));
      expect(res.headers.get("x-ratelimit-reset")).toBe("60");
      clock.advance(100);
    }
    const refused = await api("/api/keys", secret);
    await expectHostedError(refused, 429, "rate_limit_exceeded");
    // The first request frees its slot 60 s after it was admitted; 6 s have passed.
    expect(refused.headers.get("retry-after")).toBe("54");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-limit")).toBe(String(limit));
    // Another team's budget is its own.
    expect((await api("/api/keys", neighbour.secret)).status).toBe(200);
    // A bigger plan applies at once.
    await r.relay.store.teams.setPlan(team.id, "maker");
    const upgraded = await api("/api/keys", secret);
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.get("x-ratelimit-limit")).toBe(String(PLANS.maker.requestsPerMinute));
    await r.relay.store.teams.setPlan(team.id, "free");
    await expectHostedError(await api("/api/keys", secret), 429, "rate_limit_exceeded");
    clock.advance(60_000);
    expect((await api("/api/keys", secret)).status).toBe(200);
  });

  test("404, 413 and 400 are hosted errors with the request id in body and header", async () => {
    const { secret } = await createTeam(r.relay.store, "Errors", "pro");
    await expectHostedError(await api("/api/nothing-here", secret), 404, "not_found");
    await expectHostedError(await api("/api/keys/key_missing", secret, { method: "DELETE" }), 404, "not_found");
    await expectHostedError(await api("/api/keys", secret, { method: "POST", body: JSON.stringify({ name: "x".repeat(70_000) }) }), 413, "request_too_large");
    const bad = await expectHostedError(await api("/api/keys", secret, { method: "POST", body: JSON.stringify({ type: "admin" }) }), 400, "invalid_request");
    expect(bad.error.details).toEqual({ parameter: "type", provided: "admin", expected: "string" });
    await expectHostedError(await api("/api/keys", secret, { method: "POST", body: "{not json" }), 400, "invalid_request");
  });

  test("GET /api/health needs no key", async () => {
    const res = await api("/api/health");
    expect(res.status).not.toBe(401);
    expect(((await res.json()) as any).services).toBeDefined();
  });
});
