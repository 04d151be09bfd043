// Stored provider credentials (issue 38 item 2) over real HTTP on the `relay cloud` listener, on
// SQLite and on Postgres: stored, listed masked, replaced (rotated_at) and removed; each invalid field
// named without echoing a key; key permissions and teams kept apart; /api/relay sending the team's
// key to the (fake) vendor in place of the server's, and the server's for a team without one; a
// vendor echoing the team's key scrubbed from the answer, the log and the run; the row in the
// database holding neither the key nor its base64; the key file made 0600 on first need and a 0644
// one refused; and a Relay with another master key failing loudly with nothing sent to the vendor.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toBase64 } from "../../src/core/bytes.ts";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, messagesBody, runs, startWorld, type World, type WorldOptions } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");
const { model: __, ...messagesPayload } = messagesBody("claude-haiku-4-5");
/** Not shaped like any vendor's key, so only scrubbing by value can hide it. */
const TEAM_OPENAI_KEY = "team-openai-key-0123456789WXYZ";
const TEAM_ANTHROPIC_KEY = "team-anthropic-key-9876543210ABCD";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const randomMasterKey = () => toBase64(crypto.getRandomValues(new Uint8Array(32)));

interface Cloud {
  w: World;
  listener: Listener;
  call(method: string, path: string, key: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

async function startCloud(opts: WorldOptions): Promise<Cloud> {
  const w = await startWorld(opts);
  const listener = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  return {
    w,
    listener,
    call: (method, path, key, body) =>
      fetch(`${listener.url}${path}`, {
        method,
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    async stop() {
      await listener.stop(100);
      await w.stop();
    },
  };
}

describe.each(["sqlite", "postgres"] as const)("stored provider credentials on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let c: Cloud;
  let home: string;
  let teamA: { id: string; key: string };
  let teamB: { id: string; key: string };
  const storeConfig = () => (db ? { store: { driver: "postgres", postgresUrl: db.url } } : {});
  const put = (body: unknown, key = teamA.key) => c.call("PUT", "/api/v1/credentials", key, body);
  const list = async (key = teamA.key) => ((await (await c.call("GET", "/api/v1/credentials", key)).json()) as any).credentials;
  const relayCall = (cloud: Cloud, key: string, to: string, payload: unknown) => cloud.call("POST", "/api/relay", key, { to, payload });

  /** Every row of a table, read straight from the database (not through Relay's store). */
  async function rawRows(table: string): Promise<Record<string, unknown>[]> {
    if (db) {
      const sql = new SQL(db.url, { max: 1 });
      try {
        return [...(await sql.unsafe(`SELECT * FROM ${table}`))];
      } finally {
        await sql.close();
      }
    }
    const sqlite = new Database(join(home, "data", "relay.db"), { readonly: true });
    try {
      return sqlite.query(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    } finally {
      sqlite.close();
    }
  }

  async function expectInvalid(res: Response, parameter: string) {
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "invalid_request", message: expect.any(String), details: expect.objectContaining({ parameter, expected: "string" }) }, request_id: expect.stringMatching(/^req_/) });
    return text;
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_credentials");
    home = mkdtempSync(join(tmpdir(), "relay-credentials-"));
    // No RELAY_MASTER_KEY: the key file in RELAY_HOME is made on first need.
    c = await startCloud({ home, config: storeConfig() });
    const a = await createTeam(c.w.relay.relay.store, "Team A", "free");
    const b = await createTeam(c.w.relay.relay.store, "Team B", "free");
    teamA = { id: a.team.id, key: a.secret };
    teamB = { id: b.team.id, key: b.secret };
  });
  afterEach(() => {
    c.w.openai.reset();
    c.w.anthropic.reset();
  });
  afterAll(async () => {
    await c?.stop();
    rmSync(home, { recursive: true, force: true });
    await db?.drop();
  });

  test("the master key file is made 0600 at the first store; the key is stored, listed masked, replaced and removed", async () => {
    const keyFile = join(home, "master-key");
    expect(() => statSync(keyFile)).toThrow();
    expect(await list()).toEqual([]);
    // Listing needs no master key: still no file.
    expect(() => statSync(keyFile)).toThrow();

    const created = await put({ provider: "openai", api_key: "sk-first-openai-key-000000001111" });
    expect(created.status).toBe(200);
    const first = ((await created.json()) as any).credential;
    expect(first).toEqual({ provider: "openai", masked_key: "…1111", created_at: expect.stringMatching(ISO), rotated_at: null });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    c.w.clock.advance(60_000);
    const rotated = ((await (await put({ provider: "openai", api_key: TEAM_OPENAI_KEY })).json()) as any).credential;
    expect(rotated).toEqual({ provider: "openai", masked_key: "…WXYZ", created_at: first.created_at, rotated_at: expect.stringMatching(ISO) });
    expect(Date.parse(rotated.rotated_at) - Date.parse(first.created_at)).toBe(60_000);

    expect((await put({ provider: "anthropic", api_key: "short-k1" })).status).toBe(200);
    const listed = await list();
    expect(listed).toEqual([{ provider: "anthropic", masked_key: "…", created_at: expect.stringMatching(ISO), rotated_at: null }, rotated]);
    expect(JSON.stringify(listed)).not.toContain("short-k1");

    const removed = await c.call("DELETE", "/api/v1/credentials/anthropic", teamA.key);
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ credential: listed[0], deleted: true });
    const again = await c.call("DELETE", "/api/v1/credentials/anthropic", teamA.key);
    expect(again.status).toBe(404);
    expect(((await again.json()) as any).error.code).toBe("not_found");
    expect(await list()).toEqual([rotated]);
  });

  test("the row in the database holds neither the key nor its base64, and is bound to its team and provider", async () => {
    await put({ provider: "openai", api_key: TEAM_OPENAI_KEY });
    const rows = (await rawRows("provider_credentials")).filter((r) => r.team_id === teamA.id);
    expect(rows.map((r) => r.provider)).toEqual(["openai"]);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(TEAM_OPENAI_KEY);
    expect(text).not.toContain(TEAM_OPENAI_KEY.slice(0, 12));
    for (const shift of ["", "x", "xy"]) expect(text).not.toContain(toBase64(new TextEncoder().encode(shift + TEAM_OPENAI_KEY)).slice(4, 24));
    expect(String(rows[0]!.ciphertext)).toMatch(/^v1:[0-9a-f]{12}:[A-Za-z0-9+/]+=*$/);
    expect(rows[0]!.suffix).toBe("WXYZ");
  });

  test("each invalid field is a 400 naming it, and a key is never echoed", async () => {
    await expectInvalid(await put({ api_key: TEAM_OPENAI_KEY }), "provider");
    await expectInvalid(await put({ provider: 7, api_key: TEAM_OPENAI_KEY }), "provider");
    const unknown = await expectInvalid(await put({ provider: "no-such-vendor", api_key: TEAM_OPENAI_KEY }), "provider");
    expect(JSON.parse(unknown).error.message).toContain("openai");
    // Ollama takes no key.
    await expectInvalid(await put({ provider: "ollama", api_key: TEAM_OPENAI_KEY }), "provider");
    for (const bad of [undefined, 42, "short", "has a space in it", "x".repeat(4097)]) {
      const text = await expectInvalid(await put({ provider: "openai", api_key: bad }), "api_key");
      if (typeof bad === "string") expect(text).not.toContain(bad);
    }
    const broken = await put("{");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).error.code).toBe("invalid_request");
  });

  test("a read-only key lists but cannot store or remove; no key or a wrong one is a 401", async () => {
    const ro = await createKey(c.w.relay.relay.store.apiKeys, teamA.id, "read_only", "dash");
    const refused = await put({ provider: "openai", api_key: TEAM_OPENAI_KEY }, ro.secret);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe("permission_denied");
    expect((await c.call("DELETE", "/api/v1/credentials/openai", ro.secret)).status).toBe(403);
    expect((await c.call("GET", "/api/v1/credentials", ro.secret)).status).toBe(200);
    for (const [key, code] of [["", "missing_api_key"], ["rk_live_not-a-real-key-at-all-0000000000000", "invalid_api_key"]] as const) {
      for (const res of [await put({ provider: "openai", api_key: TEAM_OPENAI_KEY }, key), await c.call("GET", "/api/v1/credentials", key), await c.call("DELETE", "/api/v1/credentials/openai", key)]) {
        expect(res.status).toBe(401);
        expect(((await res.json()) as any).error.code).toBe(code);
      }
    }
  });

  test("/api/relay sends the team's stored key to the vendor, and the server's key for a team without one", async () => {
    await put({ provider: "openai", api_key: TEAM_OPENAI_KEY });
    await put({ provider: "anthropic", api_key: TEAM_ANTHROPIC_KEY });
    expect((await relayCall(c, teamA.key, "gpt-4o-mini", chatPayload)).status).toBe(200);
    expect((await relayCall(c, teamA.key, "claude-haiku-4-5", messagesPayload)).status).toBe(200);
    expect(c.w.openai.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEAM_OPENAI_KEY}`]);
    expect(c.w.anthropic.requests.map((r) => r.headers["x-api-key"])).toEqual([TEAM_ANTHROPIC_KEY]);

    // Team B sees none of A's keys, cannot remove them, and is served with the server's keys.
    expect(await list(teamB.key)).toEqual([]);
    expect((await c.call("DELETE", "/api/v1/credentials/openai", teamB.key)).status).toBe(404);
    expect((await relayCall(c, teamB.key, "gpt-4o-mini", chatPayload)).status).toBe(200);
    expect(c.w.openai.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEAM_OPENAI_KEY}`, "Bearer sk-test-openai"]);

    // Removed, A's calls use the server's key again.
    await c.call("DELETE", "/api/v1/credentials/anthropic", teamA.key);
    await relayCall(c, teamA.key, "claude-haiku-4-5", messagesPayload);
    expect(c.w.anthropic.requests.map((r) => r.headers["x-api-key"])).toEqual([TEAM_ANTHROPIC_KEY, "sk-ant-test-anthropic"]);
  });

  test("a vendor echoing the team's key: the key is in neither the answer, the run, nor the log", async () => {
    await put({ provider: "openai", api_key: TEAM_OPENAI_KEY });
    c.w.openai.enqueue({ status: 401, errorType: "invalid_request_error", errorMessage: `Incorrect API key provided: ${TEAM_OPENAI_KEY}.` });
    const res = await relayCall(c, teamA.key, "gpt-4o-mini", chatPayload);
    const body = (await res.json()) as any;
    expect(body.status_code).toBe(401);
    expect(body.body.error.message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(body)).not.toContain(TEAM_OPENAI_KEY);
    const logged = await runs(c.w);
    expect(logged.some((r) => r.error?.includes("Incorrect API key provided: [redacted]"))).toBe(true);
    expect(JSON.stringify(logged)).not.toContain(TEAM_OPENAI_KEY);
    expect(c.w.relay.logs.join("\n")).not.toContain(TEAM_OPENAI_KEY);
  });

  test("a Relay with another master key fails loudly on use: a 500 naming the cause, logged, nothing sent to the vendor", async () => {
    await put({ provider: "openai", api_key: TEAM_OPENAI_KEY });
    const other = await startCloud({ home, env: { RELAY_MASTER_KEY: randomMasterKey() }, config: storeConfig() });
    try {
      const res = await relayCall(other, teamA.key, "gpt-4o-mini", chatPayload);
      expect(res.status).toBe(500);
      const body = (await res.json()) as any;
      expect(body).toEqual({ error: { code: "credential_unreadable", message: expect.stringContaining("master key is not the one it was stored with") }, request_id: expect.stringMatching(/^req_/) });
      expect(other.w.openai.requests).toHaveLength(0);
      const logged = other.w.relay.logs.filter((l) => l.includes("a stored provider credential cannot be opened"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(teamA.id);
      expect(logged[0]).toContain("wrong_key");
      // Listing still works (it opens nothing); a team without stored keys is served as before.
      expect((await other.call("GET", "/api/v1/credentials", teamA.key)).status).toBe(200);
      expect((await relayCall(other, teamB.key, "gpt-4o-mini", chatPayload)).status).toBe(200);
      expect(other.w.openai.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-test-openai"]);
    } finally {
      await other.stop();
    }
  });

  test("a master key file others may read is refused: storing is a 500, logged with the fix", async () => {
    const looseHome = mkdtempSync(join(tmpdir(), "relay-credentials-loose-"));
    const file = join(looseHome, "master-key");
    writeFileSync(file, `${randomMasterKey()}\n`, { mode: 0o644 });
    const loose = await startCloud({ home: looseHome, config: storeConfig() });
    try {
      const team = await createTeam(loose.w.relay.relay.store, "Loose", "free");
      const res = await loose.call("PUT", "/api/v1/credentials", team.secret, { provider: "openai", api_key: TEAM_OPENAI_KEY });
      expect(res.status).toBe(500);
      expect(((await res.json()) as any).error.code).toBe("master_key_unavailable");
      expect(loose.w.relay.logs.join("\n")).toContain(`has mode 644, so others may read it`);
      expect(statSync(file).mode & 0o777).toBe(0o644);
    } finally {
      await loose.stop();
      rmSync(looseHome, { recursive: true, force: true });
    }
  });
});

describe("a team's stored key for a provider the server has no key for", () => {
  let c: Cloud;
  afterAll(() => c?.stop());

  test("makes that provider available to the team's calls only", async () => {
    c = await startCloud({ withoutKeys: ["ANTHROPIC_API_KEY"], env: { RELAY_MASTER_KEY: randomMasterKey() } });
    const keyed = await createTeam(c.w.relay.relay.store, "Keyed", "free");
    const bare = await createTeam(c.w.relay.relay.store, "Bare", "free");
    expect((await c.call("PUT", "/api/v1/credentials", keyed.secret, { provider: "anthropic", api_key: TEAM_ANTHROPIC_KEY })).status).toBe(200);
    const served = await c.call("POST", "/api/relay", keyed.secret, { to: "claude-haiku-4-5", payload: messagesPayload });
    expect(((await served.json()) as any).status_code).toBe(200);
    expect(c.w.anthropic.requests.map((r) => r.headers["x-api-key"])).toEqual([TEAM_ANTHROPIC_KEY]);
    const refused = await c.call("POST", "/api/relay", bare.secret, { to: "claude-haiku-4-5", payload: messagesPayload });
    // The core's refusal when no key at all is there for Anthropic's format (admitClientCredential).
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error).toMatchObject({ code: "authentication_error", message: "Missing Anthropic authentication" });
    expect(c.w.anthropic.requests).toHaveLength(1);
  });
});
