// The team's request log over real HTTP on the `relay cloud` listener (src/surfaces/cloud/logs.ts),
// on SQLite and on Postgres, after real relays to fake vendors: a plain call with metadata, a
// fallback across vendors, a vendor's 400 and an Anthropic call. GET /api/logs pages and filters,
// GET /api/logs/:id shows one request (another team's is a 404), GET /api/usage adds up exactly what
// was relayed, the CSV export parses back to the same records and the JSON export is them, each plan
// gate refuses with plan_upgrade_required, a read-only key reads, and each invalid parameter is a 400.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { logsCsv, type LogRecord } from "../../src/core/tenancy/request-log.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { LogPage, TeamUsage } from "../../src/surfaces/openapi/cloud-logs.ts";
import { chatBody, messagesBody, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const ROUTING = { strategies: { fallback: { chains: { "claude-haiku-4-5": ["gpt-4o-mini"] } } } };
const LEAKED_KEY = "sk-ant-api03-leakedleakedleaked0123456789";

/** RFC 4180 fields of a CSV text (quoted fields, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let cell = "";
    if (text[i] === '"') {
      for (i++; !(text[i] === '"' && text[i + 1] !== '"'); i++) cell += text[i] === '"' ? text[++i] : text[i];
      i++;
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") cell += text[i++];
    }
    row.push(cell);
    if (text[i] === ",") i++;
    else {
      rows.push(row);
      row = [];
      i += 2; // CRLF
    }
  }
  return rows;
}

describe("logsCsv", () => {
  const record: LogRecord = {
    id: "req_1", relay_id: null, timestamp: "2026-11-01T00:00:00.000Z", latency_ms: 1.5, model: "gpt-4o-mini",
    requested_model: "=HYPERLINK(\"http://evil\")", provider: "openai", status: 200,
    tokens: { input: 1, output: 2, cache_read: 0, cache_write: 0 }, estimated_cost_usd: 0.001, fallback_used: false,
    fallback_events: [], metadata: { note: "a, \"quoted\"\nline" }, stream: false,
  };

  test("a cell that would start a formula is prefixed with '; commas, quotes and line breaks are quoted", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
      const [, row] = parseCsv(logsCsv([{ ...record, provider: `${start}cmd` }]));
      expect(row![6]).toBe(`'${start}cmd`);
    }
    const rows = parseCsv(logsCsv([record]));
    expect(rows[1]![5]).toBe("'=HYPERLINK(\"http://evil\")");
    expect(JSON.parse(rows[1]![15]!)).toEqual(record.metadata);
    expect(rows[1]![1]).toBe("");
  });
});

describe.each(["sqlite", "postgres"] as const)("the request log API on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  const keys = { pro: "", proReadOnly: "", other: "", maker: "", free: "" };
  const relayIds: string[] = [];
  let otherRunId = "";

  const get = (path: string, key = keys.pro) => fetch(`${cloud.url}${path}`, { headers: { "x-api-key": key } });
  const getJson = async (path: string, key = keys.pro): Promise<any> => {
    const res = await get(path, key);
    expect(res.status).toBe(200);
    return res.json();
  };
  async function relay(key: string, body: unknown): Promise<{ relay_id: string; requestId: string }> {
    const res = await fetch(`${cloud.url}/api/relay`, { method: "POST", body: JSON.stringify(body), headers: { "x-api-key": key, "content-type": "application/json" } });
    expect(res.status).toBe(200);
    return { relay_id: ((await res.json()) as any).relay_id, requestId: res.headers.get("x-svc-request-id")! };
  }
  async function expectInvalid(path: string, parameter: string) {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "invalid_request", message: expect.stringContaining(parameter), details: expect.objectContaining({ parameter, expected: expect.any(String) }) },
      request_id: expect.stringMatching(/^req_/),
    });
  }
  async function expectPlanRefusal(path: string, key: string, plans: string) {
    const res = await get(path, key);
    expect(res.status).toBe(403);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("plan_upgrade_required");
    expect(body.error.message).toContain(`needs the ${plans} plan`);
    expect(body.request_id).toMatch(/^req_/);
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_logs");
    w = await startWorld({ config: { routing: ROUTING, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    const pro = await createTeam(store, "Pro", "pro");
    keys.pro = pro.secret;
    keys.proReadOnly = (await createKey(store.apiKeys, pro.team.id, "read_only", "dashboards")).secret;
    keys.other = (await createTeam(store, "Other", "pro")).secret;
    keys.maker = (await createTeam(store, "Maker", "maker")).secret;
    keys.free = (await createTeam(store, "Free", "free")).secret;

    const { model: _c, ...chat } = chatBody("gpt-4o-mini");
    const { model: _m, ...messages } = messagesBody("claude-haiku-4-5");
    // Oldest first: a plain call with metadata, a fallback, a vendor's 400, an Anthropic answer.
    w.openai.enqueue({ text: "one", usage: { input: 11, output: 7 } });
    relayIds.push((await relay(keys.pro, { to: "gpt-4o-mini", payload: chat, metadata: { user: "u-1", tags: ["a"], svc_relay_id: "spoofed" } })).relay_id);
    w.anthropic.enqueue({ status: 500, errorMessage: `overloaded for key ${LEAKED_KEY}` });
    w.openai.enqueue({ text: "two", usage: { input: 13, output: 3 } });
    relayIds.push((await relay(keys.pro, { to: "claude-haiku-4-5", payload: messages })).relay_id);
    w.openai.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "temperature is out of range" });
    relayIds.push((await relay(keys.pro, { to: "gpt-4o-mini", payload: chat })).relay_id);
    w.anthropic.enqueue({ text: "four", usage: { input: 17, output: 5 } });
    relayIds.push((await relay(keys.pro, { to: "claude-haiku-4-5", payload: messages })).relay_id);
    otherRunId = (await relay(keys.other, { to: "gpt-4o-mini", payload: chat })).requestId;
    await relay(keys.maker, { to: "gpt-4o-mini", payload: chat });
    await w.relay.relay.writer.flush();
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("GET /api/logs: the team's requests, newest first, with every field", async () => {
    const page = await getJson("/api/logs");
    expect([page.total, page.limit, page.offset]).toEqual([4, 50, 0]);
    expect(page.data.map((r: LogRecord) => r.relay_id)).toEqual([...relayIds].reverse());
    const [anthropic, refused, fallback, plain] = page.data as LogRecord[];
    expect(plain).toEqual({
      id: expect.stringMatching(/^req_/),
      relay_id: relayIds[0],
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      latency_ms: expect.any(Number),
      model: "gpt-4o-mini",
      requested_model: "gpt-4o-mini",
      provider: "openai",
      status: 200,
      tokens: { input: 11, output: 7, cache_read: 0, cache_write: 0 },
      estimated_cost_usd: expect.any(Number),
      fallback_used: false,
      fallback_events: [],
      // The caller's svc_relay_id was Relay's to set, and Relay's keys are not shown.
      metadata: { user: "u-1", tags: ["a"] },
      stream: false,
    });
    expect(plain!.estimated_cost_usd).toBeGreaterThan(0);
    expect(fallback).toMatchObject({ model: "gpt-4o-mini", requested_model: "claude-haiku-4-5", provider: "openai", status: 200, fallback_used: true, metadata: {} });
    expect(fallback!.fallback_events).toEqual([
      { type: "error", model: "claude-haiku-4-5", provider: "anthropic", status: 500, reason: expect.stringContaining("overloaded for key") },
      { type: "fallback", model: "gpt-4o-mini", provider: "openai", reason: expect.any(String) },
    ]);
    expect(JSON.stringify(page)).not.toContain(LEAKED_KEY);
    expect(refused).toMatchObject({ status: 400, model: "gpt-4o-mini", fallback_used: false });
    expect(anthropic).toMatchObject({ model: "claude-haiku-4-5", provider: "anthropic", tokens: { input: 17, output: 5 } });
  });

  test("paging and filters: limit and offset echoed; model, status, since and until", async () => {
    const all = (await getJson("/api/logs")).data as LogRecord[];
    const two = await getJson("/api/logs?limit=2&offset=1");
    expect([two.total, two.limit, two.offset, two.data.map((r: LogRecord) => r.id)]).toEqual([4, 2, 1, [all[1]!.id, all[2]!.id]]);
    expect((await getJson("/api/logs?limit=500")).limit).toBe(100);
    expect((await getJson("/api/logs?offset=9")).data).toEqual([]);
    const byModel = await getJson("/api/logs?model=claude-haiku-4-5");
    expect([byModel.total, byModel.data.map((r: LogRecord) => r.id)]).toEqual([1, [all[0]!.id]]);
    const byStatus = await getJson("/api/logs?status=400");
    expect(byStatus.data.map((r: LogRecord) => r.relay_id)).toEqual([relayIds[2]]);
    // The window's ends are inclusive: since and until at the same instant give that instant's requests.
    const at = all[2]!.timestamp;
    const since = await getJson(`/api/logs?since=${at}`);
    expect(since.data.map((r: LogRecord) => r.id)).toEqual(all.filter((r) => r.timestamp >= at).map((r) => r.id));
    const until = await getJson(`/api/logs?until=${at}`);
    expect(until.data.map((r: LogRecord) => r.id)).toEqual(all.filter((r) => r.timestamp <= at).map((r) => r.id));
    expect((await getJson(`/api/logs?since=${at}&until=${at}`)).data.map((r: LogRecord) => r.id)).toContain(all[2]!.id);
    expect((await getJson("/api/logs?since=2999-01-01")).total).toBe(0);
  });

  test("GET /api/logs/:id: the team's request; another team's or an unknown id is a 404", async () => {
    const [first] = (await getJson("/api/logs?limit=1")).data as LogRecord[];
    expect(await getJson(`/api/logs/${first!.id}`)).toEqual(first);
    for (const id of [otherRunId, "req_unknown"]) {
      const res = await get(`/api/logs/${id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.any(String) }, request_id: expect.stringMatching(/^req_/) });
    }
    // The other team sees its own request, and only it.
    const other = await getJson("/api/logs", keys.other);
    expect([other.total, other.data[0].id]).toEqual([1, otherRunId]);
  });

  test("GET /api/usage adds up what was relayed, per model too", async () => {
    const all = (await getJson("/api/logs")).data as LogRecord[];
    const usage = await getJson("/api/usage");
    expect(usage).toMatchObject({ requests: 4, errors: 1, fallbacks: 1, tokens: { input: 41, output: 15, cache_read: 0, cache_write: 0 } });
    expect(usage.estimated_cost_usd).toBeCloseTo(all.reduce((s, r) => s + r.estimated_cost_usd, 0), 12);
    const byModel = Object.fromEntries(usage.by_model.map((m: any) => [`${m.provider}/${m.model}`, [m.requests, m.tokens.input, m.tokens.output]]));
    expect(byModel).toEqual({ "openai/gpt-4o-mini": [3, 24, 10], "anthropic/claude-haiku-4-5": [1, 17, 5] });
    // The default window is the last 30 days up to now.
    const span = Date.parse(usage.until) - Date.parse(usage.since);
    expect(span).toBe(30 * 86_400_000);
    // A since older than the plan keeps (pro: 90 days) is raised to it.
    const capped = await getJson("/api/usage?since=2000-01-01");
    expect(Date.parse(capped.until) - Date.parse(capped.since)).toBeLessThanOrEqual(90 * 86_400_000);
    expect(capped.requests).toBe(4);
    expect((await getJson(`/api/usage?since=${all[0]!.timestamp}`)).requests).toBe(all.filter((r) => r.timestamp >= all[0]!.timestamp).length);
    expect((await getJson("/api/usage?until=2001-01-01T00:00:00Z")).requests).toBe(0);
  });

  test("the CSV export parses back to the log's records; the JSON export is them", async () => {
    const all = (await getJson("/api/logs")).data as LogRecord[];
    const csv = await get("/api/logs/export?format=csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="relay-logs-team_[0-9a-f]+-\d{4}-\d\d-\d\d\.csv"$/);
    expect(csv.headers.get("x-total-count")).toBe("4");
    const [header, ...rows] = parseCsv(await csv.text());
    expect(header).toEqual(["id", "relay_id", "timestamp", "latency_ms", "model", "requested_model", "provider", "status", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "estimated_cost_usd", "fallback_used", "fallback_events", "metadata", "stream"]);
    const col = (name: string) => header!.indexOf(name);
    expect(rows.map((r) => r[col("id")])).toEqual(all.map((r) => r.id));
    expect(rows.map((r) => Number(r[col("input_tokens")]))).toEqual(all.map((r) => r.tokens.input));
    expect(rows.map((r) => Number(r[col("estimated_cost_usd")]))).toEqual(all.map((r) => r.estimated_cost_usd));
    expect(rows.map((r) => JSON.parse(r[col("fallback_events")]!))).toEqual(all.map((r) => r.fallback_events));
    expect(rows.map((r) => JSON.parse(r[col("metadata")]!))).toEqual(all.map((r) => r.metadata));
    expect(rows.map((r) => r[col("fallback_used")])).toEqual(all.map((r) => String(r.fallback_used)));

    const json = await get("/api/logs/export?format=json&status=400", keys.proReadOnly);
    expect(json.headers.get("content-disposition")).toMatch(/\.json"$/);
    expect(await json.json()).toEqual(all.filter((r) => r.status === 400));
    // CSV is the default format.
    expect((await get("/api/logs/export")).headers.get("content-type")).toBe("text/csv; charset=utf-8");
  });

  test("plan gates: the log API and usage are pro's, the export maker's and pro's", async () => {
    for (const path of ["/api/logs", "/api/usage", "/api/logs/req_x"]) {
      await expectPlanRefusal(path, keys.free, "pro");
      await expectPlanRefusal(path, keys.maker, "pro");
    }
    await expectPlanRefusal("/api/logs/export", keys.free, "maker or pro");
    const makerExport = await get("/api/logs/export?format=json", keys.maker);
    expect(makerExport.status).toBe(200);
    expect(((await makerExport.json()) as LogRecord[]).map((r) => r.model)).toEqual(["gpt-4o-mini"]);
  });

  test("a read-only key reads every route; no key is a 401", async () => {
    for (const path of ["/api/logs", "/api/usage", "/api/logs/export"]) expect((await get(path, keys.proReadOnly)).status).toBe(200);
    expect((await fetch(`${cloud.url}/api/logs`)).status).toBe(401);
  });

  test("each invalid query parameter is a 400 naming it", async () => {
    await expectInvalid("/api/logs?limit=0", "limit");
    await expectInvalid("/api/logs?limit=ten", "limit");
    await expectInvalid("/api/logs?offset=-1", "offset");
    await expectInvalid("/api/logs?since=yesterday", "since");
    await expectInvalid("/api/logs?since=2026-11-01T10:00:00", "since"); // no time zone
    await expectInvalid("/api/logs?until=2026-13-01", "until");
    await expectInvalid("/api/logs?since=2026-11-02&until=2026-11-01", "until");
    await expectInvalid("/api/logs?status=99", "status");
    await expectInvalid("/api/logs?status=ok", "status");
    await expectInvalid("/api/logs?model=", "model");
    await expectInvalid("/api/usage?since=soon", "since");
    await expectInvalid("/api/logs/export?format=xml", "format");
    await expectInvalid("/api/logs/export?status=abc", "status");
  });

  test("the routes are in the cloud listener's OpenAPI document, and their answers match its schemas", async () => {
    expect(Value.Errors(LogPage, await getJson("/api/logs")).First()).toBeUndefined();
    expect(Value.Errors(TeamUsage, await getJson("/api/usage")).First()).toBeUndefined();
    const doc = (await (await fetch(`${cloud.url}/openapi.json`)).json()) as any;
    for (const path of ["/api/logs", "/api/logs/{id}", "/api/logs/export", "/api/usage"]) expect(doc.paths[path]?.get?.summary).toEqual(expect.any(String));
    // The export's own headers beside the guard's.
    expect(Object.keys(doc.paths["/api/logs/export"].get.responses["200"].headers)).toEqual(expect.arrayContaining(["content-disposition", "x-total-count", "x-ratelimit-limit"]));
  });
});
