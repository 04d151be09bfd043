// The team console's sign-in and JSON endpoints over real HTTP on the `relay cloud` listener, on
// SQLite and on Postgres: a key traded for an HttpOnly session cookie (the key never in it, the store
// holding only the token's hash), sessions that end with their key's revocation, their expiry (on
// the world's ManualClock) or sign-out; read-only sessions that view but cannot manage keys; requests
// not from the console's own pages refused; the request log on every plan, its export by plan; the
// plan's rate limit shared with the API; the pages' security headers; the routes in /openapi.json.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTeam, hashKey } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { SESSION_MS } from "../../src/surfaces/cloud/console/session.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, eventually, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const JSON_TYPE = { "content-type": "application/json" };

async function expectHostedError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as any;
  expect(body).toEqual({ error: { code, message: expect.any(String), ...(body.error.details ? { details: body.error.details } : {}) }, request_id: expect.stringMatching(/^req_/) });
  expect(res.headers.get("x-svc-request-id")).toBe(body.request_id);
  return body;
}

describe.each(["sqlite", "postgres"] as const)("the team console on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let cookieName: string;
  const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");

  /** A request as the console's own page sends it: its Origin, and the session cookie when given. */
  const page = (path: string, session?: string, init: RequestInit = {}) =>
    fetch(`${cloud.url}${path}`, {
      redirect: "manual",
      ...init,
      headers: {
        origin: cloud.url,
        ...(session ? { cookie: `${cookieName}=${session}` } : {}),
        ...(init.body !== undefined ? JSON_TYPE : {}),
        ...(init.headers as Record<string, string>),
      },
    });

  /** Signs in with `apiKey`; the session token the cookie carries. */
  async function signIn(apiKey: string): Promise<string> {
    const res = await page("/console/login", undefined, { method: "POST", body: JSON.stringify({ api_key: apiKey }) });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    return cookie.slice(cookie.indexOf("=") + 1, cookie.indexOf(";"));
  }

  const relayCall = (key: string, metadata: Record<string, unknown> = {}) =>
    fetch(`${cloud.url}/api/relay`, { method: "POST", headers: { "x-api-key": key, ...JSON_TYPE }, body: JSON.stringify({ to: "gpt-4o-mini", payload: chatPayload, metadata }) });

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_console");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    cookieName = `relay_console_${new URL(cloud.url).port}`;
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("a page without a session goes to the sign-in page; every page and asset carries the CSP and no inline script", async () => {
    for (const path of ["/console", "/console/logs", "/console/runs", "/console/agents", "/console/keys"]) {
      const res = await page(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/console/login");
    }
    const login = await page("/console/login");
    expect(login.status).toBe(200);
    expect(login.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    expect(login.headers.get("x-frame-options")).toBe("DENY");
    const html = await login.text();
    expect(html).toContain('<label for="login-key">API key</label>');
    // Every script has a src on this origin; nothing else is referenced.
    expect(html.match(/<script(?![^>]*\bsrc="\/console\/assets\/)[^>]*>/g)).toBeNull();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const name of ["app.css", "console.css", "ui.js", "console.js", "login.js", "icon.svg"]) {
      const asset = await page(`/console/assets/${name}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-security-policy")).toBeTruthy();
      expect(await asset.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    }
    await expectHostedError(await page("/console/assets/__proto__"), 404, "not_found");
  });

  test("signing in trades the key for an HttpOnly session cookie whose token only the browser holds", async () => {
    const { team, key, secret } = await createTeam(w.relay.relay.store, "Signers", "pro");
    const res = await page("/console/login", undefined, { method: "POST", body: JSON.stringify({ api_key: secret }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ team: { id: team.id, name: "Signers", plan: "pro" }, key: { id: key.id, type: "standard" }, plan: { export: true }, export_plans: ["maker", "pro"] });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(new RegExp(`^${cookieName}=[A-Za-z0-9_-]{43}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}$`));
    expect(cookie).not.toContain(secret);
    const token = cookie.slice(cookie.indexOf("=") + 1, cookie.indexOf(";"));
    // Stored: the token's hash, the team, the key and the expiry on the Relay's clock.
    const stored = await w.relay.relay.store.consoleSessions.getSession(hashKey(token));
    expect(stored).toMatchObject({ team_id: team.id, key_id: key.id, expires_at: w.clock.now() + SESSION_MS });
    expect(await w.relay.relay.store.consoleSessions.getSession(token)).toBeUndefined();

    const signedIn = await page("/console", token);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("content-type")).toStartWith("text/html");
    expect(((await (await page("/console/api/me", token)).json()) as any).team.id).toBe(team.id);
    // Over https (here: a TLS-terminating proxy that says so), the cookie is Secure.
    const https = await page("/console/login", undefined, { method: "POST", body: JSON.stringify({ api_key: secret }), headers: { "x-forwarded-proto": "https" } });
    expect(https.headers.get("set-cookie")).toEndWith("; Secure");
  });

  test("a wrong, missing or revoked key signs nothing in; the sign-in must come from the console's page as JSON", async () => {
    const { key, secret } = await createTeam(w.relay.relay.store, "Refused", "free");
    const login = (body: unknown, headers: Record<string, string> = {}) => page("/console/login", undefined, { method: "POST", body: JSON.stringify(body), headers });
    await expectHostedError(await login({ api_key: `${secret}x` }), 401, "invalid_api_key");
    const missing = await expectHostedError(await login({}), 400, "invalid_request");
    expect(missing.error.details).toMatchObject({ parameter: "api_key", expected: "string" });
    await expectHostedError(await login({ api_key: secret }, { origin: "https://evil.example" }), 403, "forbidden_origin");
    await expectHostedError(await login({ api_key: secret }, { "sec-fetch-site": "cross-site" }), 403, "forbidden_origin");
    const noOrigin = await fetch(`${cloud.url}/console/login`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ api_key: secret }) });
    await expectHostedError(noOrigin, 403, "forbidden_origin");
    const form = await fetch(`${cloud.url}/console/login`, { method: "POST", headers: { origin: cloud.url, "content-type": "application/x-www-form-urlencoded" }, body: `api_key=${secret}` });
    expect(form.status).toBe(415);
    await w.relay.relay.store.apiKeys.revokeKey(key.id, new Date().toISOString());
    await expectHostedError(await login({ api_key: secret }), 401, "invalid_api_key");
  });

  test("revoking the session's key ends the session at once; so do expiry and signing out", async () => {
    const { key, secret } = await createTeam(w.relay.relay.store, "Enders", "pro");
    const other = await createKey(w.relay.relay.store.apiKeys, key.team_id, "standard", "other");
    const revoked = await signIn(secret);
    const signedOut = await signIn(other.secret);
    const expiring = await signIn(other.secret);

    expect((await page("/console/api/me", revoked)).status).toBe(200);
    // Revoked from the other key's console session: the first session is over on its next request.
    const revoke = await page(`/console/api/keys/${key.id}`, signedOut, { method: "DELETE" });
    expect(revoke.status).toBe(200);
    expect(((await revoke.json()) as any).key.revoked_at).toEqual(expect.any(String));
    await expectHostedError(await page("/console/api/me", revoked), 401, "session_expired");
    expect(await w.relay.relay.store.consoleSessions.getSession(hashKey(revoked))).toBeUndefined();
    expect((await page("/console", revoked)).status).toBe(303);

    const out = await page("/console/logout", signedOut, { method: "POST", body: "{}" });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toBe(`${cookieName}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`);
    await expectHostedError(await page("/console/api/keys", signedOut), 401, "session_expired");

    expect((await page("/console/api/me", expiring)).status).toBe(200);
    w.clock.advance(SESSION_MS);
    try {
      await expectHostedError(await page("/console/api/me", expiring), 401, "session_expired");
      // The next sign-in forgets sessions that ended.
      expect(await w.relay.relay.store.consoleSessions.getSession(hashKey(expiring))).toBeDefined();
      await signIn(other.secret);
      expect(await w.relay.relay.store.consoleSessions.getSession(hashKey(expiring))).toBeUndefined();
    } finally {
      w.clock.advance(-SESSION_MS);
    }
    await expectHostedError(await page("/console/api/me"), 401, "session_required");
  });

  test("a read-only key's session sees the keys but cannot create, rotate or revoke one (403)", async () => {
    const { key } = await createTeam(w.relay.relay.store, "Viewers", "pro");
    const ro = await createKey(w.relay.relay.store.apiKeys, key.team_id, "read_only", "viewer");
    const session = await signIn(ro.secret);
    const list = await page("/console/api/keys", session);
    expect(list.status).toBe(200);
    expect(((await list.json()) as any).keys.map((k: any) => k.id).sort()).toEqual([key.id, ro.key.id].sort());
    await expectHostedError(await page("/console/api/keys", session, { method: "POST", body: "{}" }), 403, "permission_denied");
    await expectHostedError(await page(`/console/api/keys/${key.id}/rotate`, session, { method: "POST", body: "{}" }), 403, "permission_denied");
    await expectHostedError(await page(`/console/api/keys/${key.id}`, session, { method: "DELETE" }), 403, "permission_denied");
    expect((await w.relay.relay.store.apiKeys.getKey(key.id))!.revoked_at).toBeNull();
    expect((await w.relay.relay.store.apiKeys.listKeys(key.team_id)).length).toBe(2);
  });

  test("keys are created (the secret once), rotated and revoked from the console, as over the API", async () => {
    const { key, secret } = await createTeam(w.relay.relay.store, "Keepers", "maker");
    const session = await signIn(secret);
    const made = await page("/console/api/keys", session, { method: "POST", body: JSON.stringify({ type: "read_only", name: "dashboards" }) });
    expect(made.status).toBe(201);
    const minted = (await made.json()) as any;
    expect(minted.key).toMatchObject({ team_id: key.team_id, type: "read_only", name: "dashboards", revoked_at: null });
    expect(minted.api_key).toMatch(/^rk_live_/);
    expect((await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": minted.api_key } })).status).toBe(200);
    const listed = await (await page("/console/api/keys", session)).text();
    expect(listed).not.toContain(minted.api_key);
    expect(listed).not.toContain("hash");

    const rotated = (await (await page(`/console/api/keys/${minted.key.id}/rotate`, session, { method: "POST", body: "{}" })).json()) as any;
    expect(rotated.key).toMatchObject({ type: "read_only", name: "dashboards (rotated)" });
    expect(rotated.api_key).toMatch(/^rk_live_/);
    await page(`/console/api/keys/${minted.key.id}`, session, { method: "DELETE" });
    expect((await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": minted.api_key } })).status).toBe(401);
    await expectHostedError(await page("/console/api/keys", session, { method: "POST", body: JSON.stringify({ type: "admin" }) }), 400, "invalid_request");
    // Another team's key is not found.
    const stranger = await createTeam(w.relay.relay.store, "Strangers", "pro");
    await expectHostedError(await page(`/console/api/keys/${stranger.key.id}`, session, { method: "DELETE" }), 404, "not_found");
  });

  test("requests not made by the console's own pages are refused, whatever the session", async () => {
    const { key, secret } = await createTeam(w.relay.relay.store, "Guarded", "pro");
    const session = await signIn(secret);
    const bare = (init: RequestInit) => fetch(`${cloud.url}/console/api/keys/${key.id}`, { ...init, headers: { cookie: `${cookieName}=${session}`, ...(init.headers as Record<string, string>) } });
    // A state change must name its origin; a cross-site fetch (no cookie would come, but still) and a foreign origin are refused.
    await expectHostedError(await bare({ method: "DELETE" }), 403, "forbidden_origin");
    await expectHostedError(await bare({ method: "DELETE", headers: { origin: cloud.url, "sec-fetch-site": "same-site" } }), 403, "forbidden_origin");
    await expectHostedError(await bare({ method: "DELETE", headers: { origin: "http://localhost:1" } }), 403, "forbidden_origin");
    await expectHostedError(await bare({ method: "DELETE", headers: { origin: cloud.url, "sec-fetch-site": "none" } }), 403, "forbidden_origin");
    await expectHostedError(await bare({ method: "GET", headers: { origin: "https://evil.example" } }), 403, "forbidden_origin");
    await expectHostedError(await page("/console/api/keys", session, { headers: { "sec-fetch-site": "cross-site" } }), 403, "forbidden_origin");
    // The user's own navigation (an export link opened in a new tab, a bookmark) may read.
    expect((await page("/console/api/keys", session, { headers: { "sec-fetch-site": "none" } })).status).toBe(200);
    expect((await w.relay.relay.store.apiKeys.getKey(key.id))!.revoked_at).toBeNull();
    // An API key is not a console session.
    await expectHostedError(await fetch(`${cloud.url}/console/api/keys`, { headers: { "x-api-key": secret } }), 401, "session_required");
  });

  test("the request log on every plan: a relayed call, filtered, in detail; another team's is not found", async () => {
    const free = await createTeam(w.relay.relay.store, "Freebies", "free");
    const session = await signIn(free.secret);
    const relayed = (await (await relayCall(free.secret, { user: "u-1" })).json()) as any;
    expect(relayed.status_code).toBe(200);
    await w.relay.relay.writer.flush();

    const logs = (await (await page("/console/api/logs", session)).json()) as any;
    expect(logs).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const [record] = logs.data;
    expect(record).toMatchObject({ relay_id: relayed.relay_id, model: "gpt-4o-mini", provider: "openai", status: 200, metadata: { user: "u-1" }, fallback_used: false });
    expect(((await (await page("/console/api/logs?model=gpt-4o-mini&status=200", session)).json()) as any).total).toBe(1);
    expect(((await (await page("/console/api/logs?status=500", session)).json()) as any).total).toBe(0);
    expect(((await (await page(`/console/api/logs?since=${new Date(Date.now() + 60_000).toISOString()}`, session)).json()) as any).total).toBe(0);
    const bad = await expectHostedError(await page("/console/api/logs?status=abc", session), 400, "invalid_request");
    expect(bad.error.details.parameter).toBe("status");

    expect(await (await page(`/console/api/logs/${record.id}`, session)).json()).toEqual(record);
    const stranger = await createTeam(w.relay.relay.store, "Nosy", "pro");
    await expectHostedError(await page(`/console/api/logs/${record.id}`, await signIn(stranger.secret)), 404, "not_found");

    const usage = (await (await page("/console/api/usage", session)).json()) as any;
    expect(usage).toMatchObject({ requests: 1, errors: 0, by_model: [{ model: "gpt-4o-mini", provider: "openai", requests: 1 }] });
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(((await (await page(`/console/api/usage?since=${later}`, session)).json()) as any).requests).toBe(0);
    const invalid = await expectHostedError(await page("/console/api/usage?since=yesterday", session), 400, "invalid_request");
    expect(invalid.error.details.parameter).toBe("since");
  });

  test("export by plan: free is told which plans have it; maker gets CSV and JSON attachments", async () => {
    const free = await createTeam(w.relay.relay.store, "NoExport", "free");
    const refused = await expectHostedError(await page("/console/api/logs/export?format=csv", await signIn(free.secret)), 403, "plan_upgrade_required");
    expect(refused.error.message).toContain("maker or pro");

    const maker = await createTeam(w.relay.relay.store, "Exporters", "maker");
    const session = await signIn(maker.secret);
    const relayed = (await (await relayCall(maker.secret, { note: "=cmd|calc" })).json()) as any;
    await w.relay.relay.writer.flush();
    const csv = await page("/console/api/logs/export?format=csv", session);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toStartWith("text/csv");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="relay-logs-team_[0-9a-f]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith("id,relay_id,timestamp,");
    expect(lines[1]).toContain(relayed.relay_id);
    const json = (await (await page("/console/api/logs/export?format=json", session)).json()) as any[];
    expect(json.map((r) => [r.relay_id, r.metadata])).toEqual([[relayed.relay_id, { note: "=cmd|calc" }]]);
  });

  test("console requests count against the team's plan rate, with the API's", async () => {
    const { secret } = await createTeam(w.relay.relay.store, "Counted", "free");
    const session = await signIn(secret);
    const remaining = (res: Response) => Number(res.headers.get("x-ratelimit-remaining"));
    const first = remaining(await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": secret } }));
    const console = await page("/console/api/keys", session);
    expect(console.headers.get("x-ratelimit-limit")).toBe("60");
    expect(remaining(console)).toBe(first - 1);
    expect(remaining(await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": secret } }))).toBe(first - 2);
    for (let i = remaining(console) - 1; i > 0; i--) await page("/console/api/me", session);
    await expectHostedError(await page("/console/api/me", session), 429, "rate_limit_exceeded");
  });

  test("workflow runs: the list and a run's steps, as GET /api/v1/webhooks/runs and /v1/debug/runs/:runId answer them", async () => {
    const { team, secret } = await createTeam(w.relay.relay.store, "Runners", "pro");
    await w.relay.relay.store.accounts.setCloudEnabled(team.id, true);
    const api = (path: string, body?: unknown) =>
      fetch(`${cloud.url}${path}`, { method: body === undefined ? "GET" : "POST", headers: { "x-api-key": secret, ...JSON_TYPE }, body: body === undefined ? undefined : JSON.stringify(body) });
    const steps = [{ name: "greet", model: "openai:gpt-4o-mini", userPrompt: "Greet {{input.who}}." }];
    expect((await api("/api/v1/workflows", { name: "greeter", steps })).status).toBe(201);
    const { run: queued } = (await (await api("/api/v1/webhooks/trigger", { workflow: "greeter", input: { who: "Ada" } })).json()) as any;
    await eventually(async () => (((await (await api(`/api/v1/webhooks/runs/${queued.id}`)).json()) as any).run.status === "succeeded" ? true : undefined), "the run to succeed", 15_000);

    const session = await signIn(secret);
    const list = (await (await page("/console/api/runs?limit=10", session)).json()) as any;
    expect(list).toEqual((await (await api("/api/v1/webhooks/runs?limit=10")).json()) as any);
    expect(list).toMatchObject({ total: 1, limit: 10, offset: 0, data: [{ id: queued.id, workflow: "greeter", status: "succeeded" }] });
    const detail = (await (await page(`/console/api/runs/${queued.id}`, session)).json()) as any;
    expect(detail).toEqual((await (await api(`/v1/debug/runs/${queued.id}`)).json()) as any);
    expect(detail.run.steps).toMatchObject([{ name: "greet", status: "completed", model: "openai:gpt-4o-mini", prompt: { user: "Greet Ada." }, retries: 0, error: null }]);
    expect(detail.run.steps[0].tokens.input).toBeGreaterThan(0);
    await expectHostedError(await page("/console/api/runs?limit=0", session), 400, "invalid_request");
    const stranger = await createTeam(w.relay.relay.store, "Peekers", "pro");
    await expectHostedError(await page(`/console/api/runs/${queued.id}`, await signIn(stranger.secret)), 404, "not_found");
    await expectHostedError(await page("/console/api/runs"), 401, "session_required");
    expect((await page("/console/runs", session)).status).toBe(200);
  });

  test("agents of the team and public ones, and every console route in /openapi.json", async () => {
    const { secret } = await createTeam(w.relay.relay.store, "Agents", "pro");
    const registered = await fetch(`${cloud.url}/api/register`, {
      method: "POST",
      headers: { "x-api-key": secret, ...JSON_TYPE },
      body: JSON.stringify({ name: "Summarizer", capability: "summarize", description: "sums up", endpoint: "https://agents.example/sum", protocol: "a2a" }),
    });
    expect(registered.status).toBe(201);
    const agents = (await (await page("/console/api/agents", await signIn(secret))).json()) as any;
    expect(agents.agents.map((a: any) => a.name)).toContain("Summarizer");

    const doc = (await (await fetch(`${cloud.url}/openapi.json`)).json()) as any;
    const routes = [
      "post /console/login", "post /console/logout", "get /console/api/me", "get /console/api/usage", "get /console/api/logs", "get /console/api/logs/{id}",
      "get /console/api/logs/export", "get /console/api/agents", "get /console/api/keys", "post /console/api/keys", "post /console/api/keys/{id}/rotate", "delete /console/api/keys/{id}",
      "get /console/api/runs", "get /console/api/runs/{runId}",
    ];
    for (const route of routes) {
      const [method, path] = route.split(" ");
      const op = doc.paths[path!]?.[method!];
      expect({ route, documented: op !== undefined }).toEqual({ route, documented: true });
      const params: string[] = (op.parameters ?? []).map((p: any) => p.name);
      expect(params).not.toContain("x-api-key");
      if (path!.startsWith("/console/api/")) expect(params).toContain("relay_console_<port>");
    }
  });
});
