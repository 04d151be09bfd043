// Accounts of the hosted API (issue 38 item 1) over real HTTP on the `relay cloud` listener, on SQLite
// and on Postgres: sign-up (a new team, or joining by an owner's invite), sign-in, me, status,
// members, the user's tokens and their revocation; each invalid field named (a password never
// echoed); one 401 for an unknown email and a wrong password; throttling per email and globally
// (429 with Retry-After, lifted when the window passes on relay.clock); expired and revoked tokens;
// a bearer token on /api/relay and /api/keys with its role's permissions; teams kept apart; and the
// operator's `relay cloud users reset-password` as a real CLI process on the same store.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { FROM_SOURCE, REPO, childEnv, run } from "../cli/relay-process.ts";
import { chatBody, startWorld, type World } from "../proxy/world.ts";
import { chromiumAvailable, launchChromium, watchedPage } from "../helpers/browser.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const { model: _, ...payload } = chatBody("gpt-4o-mini");
const PASSWORD = "correct horse battery";
const DAY = 86_400_000;
const WINDOW = 15 * 60_000;
const hasChromium = chromiumAvailable("the console's email sign-in check");
const ACCOUNTS = { passwordMemoryKiB: 8, passwordTimeCost: 1, tokenTtlDays: 30, signinFailuresPerEmail: 3, signinFailuresGlobal: 8, signinWindowMinutes: 15, signupsPerMinute: 25 };

describe.each(["sqlite", "postgres"] as const)("accounts on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let n = 0;
  const unique = (name: string) => `${name.toLowerCase()}.${driver}.${++n}@example.com`;

  const call = (method: string, path: string, opts: { token?: string; key?: string; body?: unknown } = {}) =>
    fetch(`${cloud.url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.key ? { "x-api-key": opts.key } : {}),
      },
      body: opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body),
    });
  const signup = (body: Json) => call("POST", "/v1/accounts/signup", { body });
  const signin = (email: string, password = PASSWORD) => call("POST", "/v1/accounts/signin", { body: { email, password } });
  async function ok(res: Response | Promise<Response>, status = 200): Promise<Json> {
    const r = await res;
    const body = (await r.json()) as Json;
    expect({ status: r.status, body }).toEqual({ status, body: expect.anything() });
    return body;
  }
  async function refused(res: Response | Promise<Response>, status: number, code: string): Promise<Json> {
    const r = await res;
    const body = (await r.json()) as Json;
    expect({ status: r.status, code: body.error?.code }).toEqual({ status, code });
    expect(body.request_id).toMatch(/^req_/);
    expect(r.headers.get("x-svc-request-id")).toBe(body.request_id);
    return body;
  }
  /** A new account (and team), signed in. */
  const account = async (name: string) => {
    const email = unique(name);
    const s = await ok(signup({ email, password: PASSWORD, team_name: name }), 201);
    return { email, token: s.access_token as string, user: s.user as Json, team: s.team as Json };
  };
  /** Forgets every failure window (the tests share the global one). */
  const nextWindow = () => w.clock.advance(WINDOW + 1000);

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_accounts");
    w = await startWorld({ config: { cloud: { accounts: ACCOUNTS }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  });
  // Each test starts in a new minute of sign-ups (signupsPerMinute).
  beforeEach(() => w.clock.advance(61_000));
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("sign-up makes a free team with Cloud on and the user as owner; me, status, sign-in, tokens, sign-out", async () => {
    const email = unique("Alice");
    const s = await ok(signup({ email: `  ${email.toUpperCase()} `, password: PASSWORD, team_name: "Alice's team" }), 201);
    expect(s.user).toEqual({ id: expect.stringMatching(/^usr_/), team_id: s.team.id, email, role: "owner", created_at: expect.any(String), password_reset_at: null });
    expect(s.team).toEqual({ id: expect.stringMatching(/^team_/), name: "Alice's team", plan: "free" });
    expect(s.access_token).toMatch(/^rat_[\w-]{43}$/);
    const firstId = s.token.id as string;
    expect(s.token).toMatchObject({ id: expect.stringMatching(/^tok_/), user_id: s.user.id, prefix: s.access_token.slice(0, 8), revoked_at: null });
    expect(Date.parse(s.token.expires_at)).toBe(w.clock.now() + 30 * DAY);
    expect(JSON.stringify(s)).not.toContain(PASSWORD);
    expect(JSON.stringify(s)).not.toContain("argon2");

    const me = await ok(call("GET", "/v1/accounts/me", { token: s.access_token }));
    expect(me).toMatchObject({ user: { id: s.user.id, email, role: "owner" }, team: { id: s.team.id, plan: "free", cloud_enabled: true }, credential: { kind: "access_token", key_type: "standard", token: { id: s.token.id } } });
    const status = await ok(call("GET", "/v1/accounts/status", { token: s.access_token }));
    expect(status).toEqual({ team: expect.objectContaining({ id: s.team.id, cloud_enabled: true }), plan: expect.objectContaining({ name: "free", requestsPerMinute: 60, logRetentionDays: 7 }) });

    const again = await ok(signin(email.toUpperCase()));
    expect(again.user.id).toBe(s.user.id);
    expect(again.access_token).not.toBe(s.access_token);
    const tokens = (await ok(call("GET", "/v1/accounts/tokens", { token: again.access_token }))).tokens as Json[];
    expect(tokens.map((t) => t.id).sort()).toEqual([firstId, again.token.id].sort());
    expect(JSON.stringify(tokens)).not.toContain(s.access_token);
    expect(tokens[0].hash).toBeUndefined();

    expect(await ok(call("POST", "/v1/accounts/signout", { token: s.access_token }))).toEqual({ revoked: [firstId] });
    await refused(call("GET", "/v1/accounts/me", { token: s.access_token }), 401, "invalid_access_token");
    await ok(call("GET", "/v1/accounts/me", { token: again.access_token }));
  });

  test("an API key authenticates me, status and members too; the user-only routes want an access token", async () => {
    const a = await account("Keyed");
    const made = await createTeam(w.relay.relay.store, "Key team", "pro");
    const me = await ok(call("GET", "/v1/accounts/me", { key: made.secret }));
    expect(me).toMatchObject({ user: null, team: { id: made.team.id, cloud_enabled: false }, credential: { kind: "api_key", key_type: "standard", key: { id: made.key.id } } });
    expect(me.credential.key.hash).toBeUndefined();
    expect((await ok(call("GET", "/v1/accounts/status", { key: made.secret }))).plan).toMatchObject({ name: "pro", requestsPerMinute: 3000 });
    expect((await ok(call("GET", "/v1/accounts/members", { key: made.secret }))).members).toEqual([]);
    for (const path of ["/v1/accounts/me", "/v1/accounts/status", "/v1/accounts/members"]) {
      await refused(call("GET", path), 401, "missing_api_key");
      await refused(call("GET", path, { token: "rat_not_a_token" }), 401, "invalid_access_token");
      await refused(call("GET", path, { key: "rk_live_not_a_key" }), 401, "invalid_api_key");
    }
    const userOnly: [string, string][] = [["GET", "/v1/accounts/tokens"], ["POST", "/v1/accounts/signout"], ["DELETE", "/v1/accounts/tokens"], ["DELETE", `/v1/accounts/tokens/tok_x`], ["POST", "/v1/accounts/invites"]];
    for (const [method, path] of userOnly) {
      await refused(call(method, path, { body: method === "POST" ? {} : undefined }), 401, "missing_access_token");
      await refused(call(method, path, { key: made.secret, body: method === "POST" ? {} : undefined }), 401, "missing_access_token");
      await refused(call(method, path, { token: `${a.token}x` }), 401, "invalid_access_token");
    }
  });

  test("/openapi.json names both schemes and marks each account route with the one it takes", async () => {
    const doc = (await (await fetch(`${cloud.url}/openapi.json`)).json()) as Json;
    expect(doc.components.securitySchemes).toMatchObject({ apiKey: { type: "apiKey", in: "header", name: "x-api-key" }, accessToken: { type: "http", scheme: "bearer" } });
    const either = [{ apiKey: [] }, { accessToken: [] }];
    const expected: Record<string, unknown> = {
      "post /v1/accounts/signup": [],
      "post /v1/accounts/signin": [],
      "get /v1/accounts/me": either,
      "get /v1/accounts/status": either,
      "get /v1/accounts/members": either,
      "post /v1/accounts/invites": [{ accessToken: [] }],
      "get /v1/accounts/tokens": [{ accessToken: [] }],
      "post /v1/accounts/signout": [{ accessToken: [] }],
      "delete /v1/accounts/tokens": [{ accessToken: [] }],
      "delete /v1/accounts/tokens/{id}": [{ accessToken: [] }],
      "get /api/keys": either,
      "post /api/relay": either,
    };
    for (const [route, security] of Object.entries(expected)) {
      const [method, path] = route.split(" ") as [string, string];
      expect({ route, security: doc.paths[path]?.[method]?.security }).toEqual({ route, security });
    }
    // Every status an account route answers to a bad request is one it documents.
    const a = await account("Prober");
    const key = (await createTeam(w.relay.relay.store, "Probe", "free")).secret;
    const probes: { token?: string; key?: string; body?: string }[] = [{}, { token: "rat_garbage" }, { key }, { token: a.token, body: "{" }, { token: a.token, body: "{}" }];
    let probed = 0;
    for (const [path, ops] of Object.entries(doc.paths as Json).filter(([p]) => p.startsWith("/v1/accounts/"))) {
      for (const [method, op] of Object.entries(ops as Json)) {
        for (const probe of probes) {
          const res = await call(method.toUpperCase(), path.replace("{id}", "usr_nonexistent"), { token: probe.token, key: probe.key, body: method === "get" || method === "delete" ? undefined : (probe.body ?? "{}") });
          expect(Object.keys((op as Json).responses), `${method} ${path} answered ${res.status}`).toContain(String(res.status));
          await res.body?.cancel();
          probed++;
        }
      }
    }
    expect(probed).toBeGreaterThan(50);
    nextWindow();
  });

  test("400s name the field, never echo a password; a taken email is 409", async () => {
    const cases: [Json, string][] = [
      [{ password: PASSWORD }, "email"],
      [{ email: "not-an-email", password: PASSWORD }, "email"],
      [{ email: "a@b", password: PASSWORD }, "email"],
      [{ email: 7, password: PASSWORD }, "email"],
      [{ email: unique("v") }, "password"],
      [{ email: unique("v"), password: "short pw" }, "password"],
      [{ email: unique("v"), password: "x".repeat(257) }, "password"],
      [{ email: unique("v"), password: 1234567890123 }, "password"],
      [{ email: unique("v"), password: PASSWORD, team_name: 5 }, "team_name"],
      [{ email: unique("v"), password: PASSWORD, team_name: "" }, "team_name"],
      [{ email: unique("v"), password: PASSWORD, invite: 42 }, "invite"],
      [{ email: unique("v"), password: PASSWORD, token_name: "t".repeat(201) }, "token_name"],
    ];
    for (const [body, parameter] of cases) {
      const err = await refused(signup(body), 400, "invalid_request");
      expect({ parameter: err.error.details?.parameter }).toEqual({ parameter });
      expect(JSON.stringify(err)).not.toContain(PASSWORD);
      expect(JSON.stringify(err)).not.toContain("short pw");
    }
    const err = await refused(signin("someone@example.com", "short pw"), 400, "invalid_request");
    expect(err.error.details.parameter).toBe("password");
    expect(JSON.stringify(err)).not.toContain("short pw");
    expect((await refused(signin("nope", PASSWORD), 400, "invalid_request")).error.details.parameter).toBe("email");
    await refused(call("POST", "/v1/accounts/signup", { body: "{not json" }), 400, "invalid_request");
    await refused(call("POST", "/v1/accounts/signin", { body: "[]" }), 400, "invalid_request");

    const a = await account("Taken");
    await refused(signup({ email: a.email.toUpperCase(), password: "another password" }), 409, "email_taken");
    // The taken email's owner still signs in with their own password.
    await ok(signin(a.email));
    nextWindow();
  });

  test("a wrong password and an unknown email get the same 401", async () => {
    const a = await account("Wrong");
    const wrong = await refused(signin(a.email, "not the password"), 401, "invalid_credentials");
    const unknown = await refused(signin(unique("ghost"), PASSWORD), 401, "invalid_credentials");
    expect(unknown.error).toEqual(wrong.error);
    nextWindow();
  });

  test("throttling: an email's failures, then everyone's, are 429 with Retry-After until the window passes", async () => {
    const a = await account("Throttled");
    for (let i = 0; i < 3; i++) await refused(signin(a.email, "guess number one"), 401, "invalid_credentials");
    // Over the email's budget: refused before the password is even checked, the right one too.
    const res = await signin(a.email);
    await refused(res, 429, "too_many_attempts");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(WINDOW / 1000);
    // An unknown email is throttled the same way: a 429 says nothing about an account existing.
    const ghost = unique("ghost");
    for (let i = 0; i < 3; i++) await refused(signin(ghost), 401, "invalid_credentials");
    await refused(signin(ghost), 429, "too_many_attempts");
    // Other emails may still sign in until the global budget (8 failures) is used up.
    const b = await account("Bystander");
    await ok(signin(b.email));
    for (let i = 0; i < 2; i++) await refused(signin(unique("spray"), PASSWORD), 401, "invalid_credentials");
    await refused(signin(b.email), 429, "too_many_attempts");
    await refused(signup({ email: b.email, password: PASSWORD }), 429, "too_many_attempts");
    nextWindow();
    await ok(signin(a.email));
    await ok(signin(b.email));
  });

  test("sign-ups per minute are capped (each costs a password hash): 429, then served the next minute", async () => {
    const early = await account("Early");
    // Every sign-up request counts, refused ones too: the cap comes before any work.
    for (let i = 0; i < 24; i++) await refused(signup({ email: "not-an-email", password: PASSWORD }), 400, "invalid_request");
    const res = await signup({ email: unique("late"), password: PASSWORD });
    await refused(res, 429, "rate_limit_exceeded");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // Sign-in is not a sign-up.
    await ok(signin(early.email));
    w.clock.advance(61_000);
    await ok(signup({ email: unique("late"), password: PASSWORD }), 201);
  });

  test("a user changes their password (other tokens revoked); an owner changes a member's role and removes a member", async () => {
    const owner = await account("Chief");
    const other = (await ok(signin(owner.email))).access_token as string;
    await refused(call("POST", "/v1/accounts/password", { token: owner.token, body: { current_password: "not the password", new_password: "a brand new password" } }), 401, "invalid_credentials");
    expect((await refused(call("POST", "/v1/accounts/password", { token: owner.token, body: { current_password: PASSWORD, new_password: "short" } }), 400, "invalid_request")).error.details.parameter).toBe("new_password");
    await refused(call("POST", "/v1/accounts/password", { key: (await createTeam(w.relay.relay.store, "k", "free")).secret, body: {} }), 401, "missing_access_token");
    const changed = await ok(call("POST", "/v1/accounts/password", { token: owner.token, body: { current_password: PASSWORD, new_password: "a brand new password" } }));
    expect(changed.revoked).toHaveLength(1);
    await refused(call("GET", "/v1/accounts/me", { token: other }), 401, "invalid_access_token");
    await ok(call("GET", "/v1/accounts/me", { token: owner.token }));
    await refused(signin(owner.email), 401, "invalid_credentials");
    await ok(signin(owner.email, "a brand new password"));

    const email = unique("crew");
    const inv = await ok(call("POST", "/v1/accounts/invites", { token: owner.token, body: { email } }), 201);
    const crew = await ok(signup({ email, password: PASSWORD, invite: inv.invite_token }), 201);
    const stranger = await account("Stranger");
    const path = `/v1/accounts/members/${crew.user.id}`;
    await refused(call("PATCH", path, { token: crew.access_token, body: { role: "owner" } }), 403, "permission_denied");
    await refused(call("PATCH", path, { token: stranger.token, body: { role: "read_only" } }), 404, "not_found");
    await refused(call("PATCH", `/v1/accounts/members/${owner.user.id}`, { token: owner.token, body: { role: "member" } }), 409, "own_account");
    expect((await refused(call("PATCH", path, { token: owner.token, body: { role: "boss" } }), 400, "invalid_request")).error.details.parameter).toBe("role");
    expect((await ok(call("PATCH", path, { token: owner.token, body: { role: "read_only" } }))).member).toMatchObject({ id: crew.user.id, role: "read_only" });
    // The member's token acts with the new role at once.
    await refused(call("POST", "/api/keys", { token: crew.access_token, body: {} }), 403, "permission_denied");

    await refused(call("DELETE", path, { token: stranger.token }), 404, "not_found");
    await refused(call("DELETE", `/v1/accounts/members/${owner.user.id}`, { token: owner.token }), 409, "own_account");
    expect((await ok(call("DELETE", path, { token: owner.token }))).removed.id).toBe(crew.user.id);
    await refused(call("GET", "/v1/accounts/me", { token: crew.access_token }), 401, "invalid_access_token");
    await refused(signin(email), 401, "invalid_credentials");
    expect(((await ok(call("GET", "/v1/accounts/members", { token: owner.token }))).members as Json[]).map((m) => m.id)).toEqual([owner.user.id]);
    nextWindow();
  });

  test("a token expires after tokenTtlDays, on relay.clock", async () => {
    const a = await account("Expiring");
    w.clock.advance(30 * DAY - 1000);
    await ok(call("GET", "/v1/accounts/me", { token: a.token }));
    w.clock.advance(1000);
    const err = await refused(call("GET", "/v1/accounts/me", { token: a.token }), 401, "invalid_access_token");
    expect(err.error.message).toContain("expired");
    await refused(call("GET", "/api/keys", { token: a.token }), 401, "invalid_access_token");
    const fresh = await ok(signin(a.email));
    await ok(call("GET", "/v1/accounts/me", { token: fresh.access_token }));
  });

  test("revocation: one token, another user's (404), and all of them", async () => {
    const a = await account("Revoker");
    const second = (await ok(signin(a.email))).access_token as string;
    const third = await ok(signin(a.email));
    const other = await account("Other");
    const otherId = (await ok(call("GET", "/v1/accounts/me", { token: other.token }))).credential.token.id;
    await refused(call("DELETE", `/v1/accounts/tokens/${otherId}`, { token: a.token }), 404, "not_found");
    await ok(call("GET", "/v1/accounts/me", { token: other.token }));

    const revoked = await ok(call("DELETE", `/v1/accounts/tokens/${third.token.id}`, { token: a.token }));
    expect(revoked.token).toMatchObject({ id: third.token.id, revoked_at: expect.any(String) });
    const err = await refused(call("GET", "/v1/accounts/me", { token: third.access_token }), 401, "invalid_access_token");
    expect(err.error.message).toContain("revoked");

    const all = await ok(call("DELETE", "/v1/accounts/tokens", { token: second }));
    expect(all.revoked).toHaveLength(2);
    for (const t of [a.token, second]) await refused(call("GET", "/v1/accounts/me", { token: t }), 401, "invalid_access_token");
    await ok(call("GET", "/v1/accounts/me", { token: other.token }));
  });

  test("invites: an owner invites an email in a role; the invitee joins with it, once; a read_only member is 403 on a core route", async () => {
    const owner = await account("Owner");
    const viewerEmail = unique("viewer");
    const made = await ok(call("POST", "/v1/accounts/invites", { token: owner.token, body: { email: viewerEmail, role: "read_only" } }), 201);
    expect(made.invite).toMatchObject({ id: expect.stringMatching(/^inv_/), team_id: owner.team.id, email: viewerEmail, role: "read_only", created_by: owner.user.id, used_at: null });
    expect(made.invite_token).toMatch(/^rinv_/);
    expect(made.invite.hash).toBeUndefined();
    expect((await refused(call("POST", "/v1/accounts/invites", { token: owner.token, body: { email: "x" } }), 400, "invalid_request")).error.details.parameter).toBe("email");
    expect((await refused(call("POST", "/v1/accounts/invites", { token: owner.token, body: { email: unique("r"), role: "admin" } }), 400, "invalid_request")).error.details.parameter).toBe("role");

    // Another email, a made-up token: one refusal naming the invite.
    const wrongEmail = await refused(signup({ email: unique("intruder"), password: PASSWORD, invite: made.invite_token }), 400, "invalid_request");
    expect(wrongEmail.error.details.parameter).toBe("invite");
    await refused(signup({ email: viewerEmail, password: PASSWORD, invite: "rinv_made_up" }), 400, "invalid_request");

    const joined = await ok(signup({ email: viewerEmail, password: PASSWORD, invite: made.invite_token, team_name: "ignored" }), 201);
    expect(joined.user).toMatchObject({ team_id: owner.team.id, role: "read_only" });
    expect(joined.team).toMatchObject({ id: owner.team.id, name: "Owner" });
    await refused(signup({ email: viewerEmail, password: PASSWORD, invite: made.invite_token }), 400, "invalid_request");

    const viewer = joined.access_token as string;
    expect((await ok(call("GET", "/v1/accounts/me", { token: viewer }))).credential.key_type).toBe("read_only");
    await refused(call("POST", "/api/keys", { token: viewer, body: { name: "nope" } }), 403, "permission_denied");
    await refused(call("POST", "/api/relay", { token: viewer, body: { to: "gpt-4o-mini", payload } }), 403, "permission_denied");
    await refused(call("POST", "/v1/accounts/invites", { token: viewer, body: { email: unique("y") } }), 403, "permission_denied");
    await ok(call("GET", "/api/keys", { token: viewer }));
    const members = (await ok(call("GET", "/v1/accounts/members", { token: viewer }))).members as Json[];
    // Both joined at the same instant of relay.clock: compared as a set.
    expect(members.map((m) => [m.email, m.role]).sort()).toEqual([[owner.email, "owner"], [viewerEmail, "read_only"]].sort());

    // A member (not an owner) cannot invite either.
    const memberEmail = unique("member");
    const inv = await ok(call("POST", "/v1/accounts/invites", { token: owner.token, body: { email: memberEmail } }), 201);
    expect(inv.invite.role).toBe("member");
    const member = await ok(signup({ email: memberEmail, password: PASSWORD, invite: inv.invite_token }), 201);
    await refused(call("POST", "/v1/accounts/invites", { token: member.access_token, body: { email: unique("z") } }), 403, "permission_denied");
    await ok(call("POST", "/api/keys", { token: member.access_token, body: { name: "member's key" } }), 201);
  });

  test("a bearer token works on /api/relay and /api/keys, never reaches the vendor, and sees only its team", async () => {
    const a = await account("Relayer");
    const b = await account("Neighbour");
    const bKey = await ok(call("POST", "/api/keys", { token: b.token, body: { name: "b's key" } }), 201);

    w.openai.requests.length = 0;
    const relayed = await call("POST", "/api/relay", { token: a.token, body: { to: "gpt-4o-mini", payload } });
    expect(relayed.status).toBe(200);
    expect(relayed.headers.get("x-ratelimit-limit")).toBe("60");
    expect(((await relayed.json()) as Json).status_code).toBe(200);
    expect(w.openai.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(w.openai.requests)).not.toContain(a.token);

    const created = await ok(call("POST", "/api/keys", { token: a.token, body: { name: "from a token" } }), 201);
    expect(created.key.team_id).toBe(a.team.id);
    const listed = (await ok(call("GET", "/api/keys", { token: a.token }))).keys as Json[];
    expect(listed.map((k) => k.id)).toEqual([created.key.id]);
    // B's key and B's people are not A's business.
    await refused(call("DELETE", `/api/keys/${bKey.key.id}`, { token: a.token }), 404, "not_found");
    expect(((await ok(call("GET", "/v1/accounts/members", { token: a.token }))).members as Json[]).map((m) => m.email)).toEqual([a.email]);
    expect(((await ok(call("GET", "/v1/accounts/members", { key: bKey.api_key }))).members as Json[]).map((m) => m.email)).toEqual([b.email]);
    // A's key made with the token works like any key.
    expect((await ok(call("GET", "/v1/accounts/me", { key: created.api_key }))).team.id).toBe(a.team.id);
  });

  test("the console signs in with an email and password too; signing out revokes its token; a wrong password is the same 401", async () => {
    const a = await account("Console");
    const consoleCall = (method: string, path: string, body?: unknown, cookie?: string) =>
      fetch(`${cloud.url}${path}`, {
        method,
        headers: { origin: cloud.url, "content-type": "application/json", ...(cookie ? { cookie } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    await refused(consoleCall("POST", "/console/login", { email: a.email, password: "not the password" }), 401, "invalid_credentials");
    const res = await consoleCall("POST", "/console/login", { email: a.email, password: PASSWORD });
    const who = await ok(res);
    expect(who).toMatchObject({ team: { id: a.team.id }, key: { type: "standard" } });
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const tokens = (await ok(call("GET", "/v1/accounts/tokens", { token: a.token }))).tokens as Json[];
    const consoleToken = tokens.find((t) => t.name === "console")!;
    expect(consoleToken.id).toBe(who.key.id);
    expect((await ok(consoleCall("GET", "/console/api/keys", undefined, cookie))).keys).toEqual([]);

    // Revoking the console's token from the API ends the console session.
    await ok(call("DELETE", `/v1/accounts/tokens/${consoleToken.id}`, { token: a.token }));
    await refused(consoleCall("GET", "/console/api/me", undefined, cookie), 401, "session_expired");

    const again = await consoleCall("POST", "/console/login", { email: a.email, password: PASSWORD });
    const cookie2 = again.headers.get("set-cookie")!.split(";")[0]!;
    const id2 = (await ok(again)).key.id as string;
    expect((await consoleCall("POST", "/console/logout", {}, cookie2)).status).toBe(204);
    expect(((await ok(call("GET", "/v1/accounts/tokens", { token: a.token }))).tokens as Json[]).map((t) => t.id)).not.toContain(id2);
    nextWindow();
  });

  // The page does not depend on the store: once is enough.
  if (driver === "sqlite") test.skipIf(!hasChromium)("the console's sign-in page signs a user in with an email and password (Chromium)", async () => {
    const a = await account("Browser");
    const browser = await launchChromium();
    const { page, problems } = await watchedPage(browser.context, 1280, 900);
    try {
      await page.goto(`${cloud.url}/console/login`);
      await page.getByLabel("Email").fill(a.email);
      await page.getByLabel("Password").fill("not the password");
      await page.getByRole("button", { name: "Use email and password" }).click();
      await page.locator("#login-error:not([hidden])").waitFor();
      expect(await page.locator("#login-error").textContent()).toContain("the email or the password is wrong");
      expect(await page.getByLabel("Password").inputValue()).toBe("");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Use email and password" }).click();
      await page.waitForURL(`${cloud.url}/console`);
      await page.locator("body[data-ready]").waitFor();
      // The 401 of the first try is the page's own doing; nothing else went wrong.
      expect(problems.filter((p) => !p.includes("401"))).toEqual([]);
    } finally {
      await page.close();
      await browser.close();
      nextWindow();
    }
  }, 60_000);

  test("relay cloud users reset-password (a real CLI process on the same store) sets a new password and revokes the tokens", async () => {
    const a = await account("Forgetful");
    const env = childEnv(w.relay.home);
    const listed = await run([...FROM_SOURCE, "cloud", "users", "list", "--team", a.team.id, "--json"], { env });
    expect(listed.stderr).toBe("");
    expect(JSON.parse(listed.stdout).users).toEqual([expect.objectContaining({ email: a.email, role: "owner" })]);
    expect(listed.stdout).not.toContain("argon2");

    const reset = await run([...FROM_SOURCE, "cloud", "users", "reset-password", a.email.toUpperCase()], { env });
    expect(reset.code).toBe(0);
    const password = /new password, shown this once: (\S+)\n/.exec(reset.stdout)?.[1];
    expect(password?.length).toBeGreaterThanOrEqual(20);
    await refused(call("GET", "/v1/accounts/me", { token: a.token }), 401, "invalid_access_token");
    await refused(signin(a.email), 401, "invalid_credentials");
    const me = await ok(signin(a.email, password));
    expect(me.user.password_reset_at).toEqual(expect.any(String));

    // From stdin: in no argument list, and not printed back.
    const chosen = "a password of my own choosing";
    const proc = Bun.spawn([...FROM_SOURCE, "cloud", "users", "reset-password", a.email, "--stdin"], { env, cwd: REPO, stdin: new TextEncoder().encode(`${chosen}\n`), stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out).not.toContain(chosen);
    await ok(signin(a.email, chosen));

    const missing = await run([...FROM_SOURCE, "cloud", "users", "reset-password", unique("nobody")], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no user");
    nextWindow();
  }, 30_000);
});
