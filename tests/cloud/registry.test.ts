// The agent registry over real HTTP on the `relay cloud` listener, on SQLite and on Postgres:
// POST /api/register (fields, an A2A Agent Card, each invalid field a 400 naming itself, the
// Idempotency-Key) and GET /api/discover (capability filter incl. card skill ids and tags, paging
// with echoed limit/offset and total, team scoping with public agents, read-only keys refused).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

const AGENT = { name: "Searcher", capability: "search", description: "finds things", endpoint: "https://agents.example/search", protocol: "http" };

const CARD = {
  name: "Translator",
  description: "translates text",
  url: "https://agents.example/a2a",
  version: "1.0.0",
  protocolVersion: "0.3.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "translate", name: "Translate", description: "any language pair", tags: ["language", "i18n"], examples: ["hola → hello"] }],
};

describe.each(["sqlite", "postgres"] as const)("the agent registry on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  let cloud: Listener;
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${cloud.url}${path}`, { ...init, headers: { "x-api-key": key, ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...(init.headers as Record<string, string>) } });
  const register = (key: string, body: unknown, headers: Record<string, string> = {}) => api("/api/register", key, { method: "POST", body: JSON.stringify(body), headers });
  const discover = async (key: string, query = "") => {
    const res = await api(`/api/discover${query}`, key);
    expect(res.status).toBe(200);
    return (await res.json()) as { agents: any[]; total: number; limit: number; offset: number };
  };
  async function expectInvalid(res: Response, parameter: string, expected: string) {
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toEqual({ error: { code: "invalid_request", message: expect.any(String), details: expect.objectContaining({ parameter, expected }) }, request_id: expect.stringMatching(/^req_/) });
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_registry");
    r = await startRelay({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  test("register answers the §2.3 agent, and discover finds it with echoed paging and a total", async () => {
    const { secret } = await createTeam(r.relay.store, "Finders", "pro");
    const res = await register(secret, AGENT);
    expect(res.status).toBe(201);
    const agent = (await res.json()) as any;
    expect(agent).toEqual({ ...AGENT, id: expect.stringMatching(/^agent_[0-9a-f]+$/), created_at: expect.any(String), public: false });
    expect(new Date(agent.created_at).toISOString()).toBe(agent.created_at);
    // Unfiltered, the page also holds other teams' public agents (registered by other tests).
    expect((await discover(secret)).agents).toContainEqual(agent);
    expect(await discover(secret, "?capability=search")).toEqual({ agents: [agent], total: 1, limit: 50, offset: 0 });
    expect(await discover(secret, "?capability=code")).toEqual({ agents: [], total: 0, limit: 50, offset: 0 });
  });

  test("each invalid field is a 400 naming itself with a type name", async () => {
    const { secret } = await createTeam(r.relay.store, "Strict", "pro");
    for (const field of ["name", "capability", "description", "endpoint", "protocol"] as const) {
      const { [field]: _, ...missing } = AGENT;
      await expectInvalid(await register(secret, missing), field, "string");
      await expectInvalid(await register(secret, { ...AGENT, [field]: 42 }), field, "string");
    }
    await expectInvalid(await register(secret, { ...AGENT, endpoint: "ftp://agents.example/x" }), "endpoint", "string");
    await expectInvalid(await register(secret, { ...AGENT, endpoint: "not a url" }), "endpoint", "string");
    await expectInvalid(await register(secret, { ...AGENT, public: "yes" }), "public", "boolean");
    await expectInvalid(await api("/api/discover?limit=ten", secret), "limit", "integer");
    await expectInvalid(await api("/api/discover?limit=0", secret), "limit", "integer");
    await expectInvalid(await api("/api/discover?offset=-1", secret), "offset", "integer");
    const notJson = await api("/api/register", secret, { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
    expect((await discover(secret, "?capability=search")).total).toBe(0);
  });

  test("paging is stable: limit is capped at 100, pages do not overlap, total counts every match", async () => {
    const { secret } = await createTeam(r.relay.store, "Many", "pro");
    const made: string[] = [];
    for (let i = 0; i < 105; i++) made.push(((await (await register(secret, { ...AGENT, name: `A${i}`, capability: i % 2 ? "odd" : "even" })).json()) as any).id);
    const first = await discover(secret, "?limit=500");
    expect(first).toMatchObject({ total: 105, limit: 100, offset: 0 });
    expect(first.agents).toHaveLength(100);
    const rest = await discover(secret, "?limit=100&offset=100");
    expect(rest).toMatchObject({ total: 105, limit: 100, offset: 100 });
    expect([...first.agents, ...rest.agents].map((a) => a.id).sort()).toEqual([...made].sort());
    const again = await discover(secret, "?limit=100");
    expect(again.agents.map((a) => a.id)).toEqual(first.agents.map((a) => a.id));
    const odd = await discover(secret, "?capability=odd&limit=10&offset=50");
    expect(odd).toMatchObject({ total: 52, limit: 10, offset: 50 });
    // Oldest first; agents made in the same millisecond keep one order too (by id), so the page is the
    // whole odd list's tail in that order.
    const allOdd = await discover(secret, "?capability=odd&limit=100");
    expect(odd.agents.map((a) => a.id)).toEqual(allOdd.agents.slice(50).map((a) => a.id));
    expect(odd.agents.map((a) => a.name).sort()).toEqual(["A101", "A103"]);
  });

  test("a team sees its own agents and public ones, never another team's private ones", async () => {
    const a = await createTeam(r.relay.store, "Team A", "pro");
    const b = await createTeam(r.relay.store, "Team B", "pro");
    const own = (await (await register(a.secret, { ...AGENT, capability: "scoped" })).json()) as any;
    await register(b.secret, { ...AGENT, capability: "scoped", name: "B private" });
    const shared = (await (await register(b.secret, { ...AGENT, capability: "scoped", name: "B public", public: true })).json()) as any;
    expect(shared.public).toBe(true);
    const seen = await discover(a.secret, "?capability=scoped");
    expect(seen.agents.map((x) => x.id)).toEqual([own.id, shared.id]);
    expect(seen.total).toBe(2);
    expect((await discover(b.secret, "?capability=scoped")).total).toBe(2);
  });

  test("a read-only key may neither register nor discover (403)", async () => {
    const { key } = await createTeam(r.relay.store, "Readers", "pro");
    const ro = await createKey(r.relay.store.apiKeys, key.team_id, "read_only", "dash");
    expect((await register(ro.secret, AGENT)).status).toBe(403);
    expect((await api("/api/discover", ro.secret)).status).toBe(403);
    expect((await api("/api/discover", "rk_live_nonsense")).status).toBe(401);
  });

  test("an A2A Agent Card supplies the fields; its skill ids and tags are discoverable", async () => {
    const { secret } = await createTeam(r.relay.store, "Carded", "pro");
    const res = await register(secret, { card: CARD });
    expect(res.status).toBe(201);
    const agent = (await res.json()) as any;
    expect(agent).toEqual({ id: expect.stringMatching(/^agent_/), name: "Translator", capability: "translate", description: "translates text", endpoint: CARD.url, protocol: "JSONRPC", created_at: expect.any(String), public: false });
    for (const label of ["translate", "language", "i18n"]) expect((await discover(secret, `?capability=${label}`)).agents).toEqual([agent]);
    // A field beside the card wins; an A2A 1.0 card names its endpoint in supportedInterfaces.
    const { url: _, ...v1 } = CARD;
    const named = (await (await register(secret, { card: { ...v1, supportedInterfaces: [{ url: "https://agents.example/v1", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] }, capability: "words" })).json()) as any;
    expect(named).toMatchObject({ capability: "words", endpoint: "https://agents.example/v1", protocol: "HTTP+JSON" });
    expect((await discover(secret, "?capability=i18n")).total).toBe(2);
  });

  test("an invalid card is a 400 naming the card's field", async () => {
    const { secret } = await createTeam(r.relay.store, "Bad cards", "pro");
    await expectInvalid(await register(secret, { card: "https://agents.example/card.json" }), "card", "object");
    for (const field of ["name", "description", "version"] as const) {
      const { [field]: _, ...missing } = CARD;
      await expectInvalid(await register(secret, { card: missing }), `card.${field}`, "string");
    }
    await expectInvalid(await register(secret, { card: { ...CARD, capabilities: [] } }), "card.capabilities", "object");
    await expectInvalid(await register(secret, { card: { ...CARD, defaultInputModes: "text/plain" } }), "card.defaultInputModes", "array");
    await expectInvalid(await register(secret, { card: { ...CARD, defaultOutputModes: [1] } }), "card.defaultOutputModes[0]", "string");
    await expectInvalid(await register(secret, { card: { ...CARD, url: "file:///etc/passwd" } }), "card.url", "string");
    await expectInvalid(await register(secret, { card: { ...CARD, skills: [{ id: "x", name: "X", description: "x" }] } }), "card.skills[0].tags", "array");
    await expectInvalid(await register(secret, { card: { ...CARD, skills: [] } }), "capability", "string");
    expect((await discover(secret, "?capability=translate")).total).toBe(0);
  });

  test("an Idempotency-Key replays the first answer; another body with it is a 422; a failure frees it", async () => {
    const { secret } = await createTeam(r.relay.store, "Retriers", "pro");
    const other = await createTeam(r.relay.store, "Others", "pro");
    const headers = { "idempotency-key": "reg-1" };
    const first = await register(secret, AGENT, headers);
    expect(first.status).toBe(201);
    const agent = await first.json();
    const retry = await register(secret, AGENT, headers);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toEqual(agent);
    expect((await discover(secret, "?capability=search")).total).toBe(1);

    const reused = await register(secret, { ...AGENT, name: "Other" }, headers);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as any).error.code).toBe("idempotency_key_reused");
    // Keys are per team: another team's same key registers its own agent.
    expect((await register(other.secret, AGENT, headers)).status).toBe(201);
    expect((await discover(other.secret, "?capability=search")).agents.map((a) => a.id)).not.toContain((agent as any).id);

    // A refused request stores nothing under its key: the corrected retry with it registers.
    const bad = await register(secret, { ...AGENT, endpoint: "nope" }, { "idempotency-key": "reg-2" });
    expect(bad.status).toBe(400);
    expect((await register(secret, { ...AGENT, endpoint: "nope" }, { "idempotency-key": "reg-2" })).status).toBe(400);
    expect((await register(secret, AGENT, { "idempotency-key": "reg-2" })).status).toBe(201);
    expect((await discover(secret, "?capability=search")).total).toBe(2);
    await expectInvalid(await register(secret, AGENT, { "idempotency-key": "k".repeat(256) }), "Idempotency-Key", "string");
  });

  test("while the first request with a key still runs, a retry with it is a 409", async () => {
    const { team, secret } = await createTeam(r.relay.store, "Impatient", "pro");
    const body = JSON.stringify(AGENT);
    // What the first request claimed its key with: the method, path and body, hashed.
    const fingerprint = new Bun.CryptoHasher("sha256").update(`POST /api/register\n${body}`).digest("hex");
    expect(await r.relay.store.idempotency.claim(team.id, "busy", fingerprint, new Date().toISOString())).toEqual({ kind: "claimed" });
    const res = await api("/api/register", secret, { method: "POST", body, headers: { "idempotency-key": "busy" } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error.code).toBe("idempotency_key_in_use");
    expect(res.headers.get("retry-after")).toBe("1");
  });
});
