// POST /api/relay over real HTTP on the `relay cloud` listener, with fake Anthropic and OpenAI
// vendors, on SQLite and on Postgres: the §2.2 answer in the payload's own format (chat, Responses,
// Anthropic messages), a fallback across vendors answered in the requested model's shape, a vendor's
// error carried in a 200, each invalid field named, key permissions, a stream read by a plain SSE
// client ending with the `relay` event, the Idempotency-Key, and metadata kept on the run.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, messagesBody, openaiStreamText, runs, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const ROUTING = { strategies: { fallback: { chains: { "claude-haiku-4-5": ["gpt-4o-mini"] } } } };
const RELAY_ID = /^evt_rel_[0-9a-f]+$/;

describe.each(["sqlite", "postgres"] as const)("POST /api/relay on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let key: string;
  const relayCall = (body: unknown, headers: Record<string, string> = {}, secret = key) =>
    fetch(`${cloud.url}/api/relay`, { method: "POST", body: JSON.stringify(body), headers: { "x-api-key": secret, "content-type": "application/json", ...headers } });
  const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");

  async function expectInvalid(res: Response, parameter: string, expected: string, code = "invalid_request") {
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toEqual({ error: { code, message: expect.any(String), details: expect.objectContaining({ parameter, expected }) }, request_id: expect.stringMatching(/^req_/) });
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_relay");
    w = await startWorld({ config: { routing: ROUTING, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    key = (await createTeam(w.relay.relay.store, "Relayers", "pro")).secret;
  });
  afterEach(() => {
    w.openai.reset();
    w.anthropic.reset();
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("an OpenAI chat payload answers §2.2 with the vendor's own body", async () => {
    const res = await relayCall({ to: "gpt-4o-mini", payload: chatPayload });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual({ relay_id: expect.stringMatching(RELAY_ID), status_code: 200, latency_ms: expect.any(Number), body: expect.any(Object), fallback_used: false });
    expect(Number.isInteger(body.latency_ms)).toBe(true);
    expect(body.body).toMatchObject({ object: "chat.completion", choices: [{ message: { role: "assistant", content: "Hello from fake openai" } }] });
    expect(w.openai.requests.map((r) => [r.path, r.json.model, r.json.messages])).toEqual([["/v1/chat/completions", "gpt-4o-mini", chatPayload.messages]]);
  });

  test("an `input` payload to an OpenAI model is a Responses call, answered as a Response", async () => {
    const res = await relayCall({ to: "gpt-4o-mini", payload: { input: "Say hi" } });
    const body = (await res.json()) as any;
    expect(body.status_code).toBe(200);
    expect(body.body).toMatchObject({ object: "response", output: [expect.objectContaining({ type: "message" })] });
    expect(w.openai.requests.map((r) => r.path)).toEqual(["/v1/responses"]);
  });

  test("an Anthropic payload whose vendor fails falls back to OpenAI and answers in Anthropic's shape", async () => {
    w.anthropic.enqueue({ status: 500, errorMessage: "the fake vendor broke" });
    const { model: __, ...payload } = messagesBody("claude-haiku-4-5");
    const body = (await (await relayCall({ to: "claude-haiku-4-5", payload })).json()) as any;
    expect(body).toMatchObject({ status_code: 200, fallback_used: true });
    expect(body.body).toMatchObject({ type: "message", role: "assistant", content: [{ type: "text", text: "Hello from fake openai" }] });
    expect(w.anthropic.requests).toHaveLength(1);
    expect(w.openai.requests.map((r) => r.json.model)).toEqual(["gpt-4o-mini"]);
  });

  test("a vendor's 400 is a 200 relay carrying the vendor's status and error body", async () => {
    w.openai.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "temperature is out of range" });
    const res = await relayCall({ to: "gpt-4o-mini", payload: chatPayload });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ relay_id: expect.stringMatching(RELAY_ID), status_code: 400, fallback_used: false });
    expect(body.body.error).toMatchObject({ type: "invalid_request_error", message: expect.stringContaining("temperature is out of range") });
  });

  test("each invalid field is a 400 naming itself with a type name; an unknown model names `to`", async () => {
    await expectInvalid(await relayCall({ payload: chatPayload }), "to", "string");
    await expectInvalid(await relayCall({ to: 42, payload: chatPayload }), "to", "string");
    await expectInvalid(await relayCall({ to: "gpt-4o-mini" }), "payload", "object");
    await expectInvalid(await relayCall({ to: "gpt-4o-mini", payload: [1] }), "payload", "object");
    await expectInvalid(await relayCall({ to: "gpt-4o-mini", payload: chatPayload, metadata: "x" }), "metadata", "object");
    await expectInvalid(await relayCall({ to: "gpt-4o-mini", payload: { ...chatPayload, stream: "yes" } }), "payload.stream", "boolean");
    await expectInvalid(await relayCall({ to: "gpt-4o-mini", payload: { messages: "hi" } }), "payload.messages", "array");
    await expectInvalid(await relayCall({ to: "claude-haiku-4-5", payload: { messages: [{ role: "user", content: "hi" }], max_tokens: "many" } }), "payload.max_tokens", "number");
    const unknown = await relayCall({ to: "no-such-model-at-all", payload: chatPayload });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toMatchObject({ code: "model_not_found", details: { parameter: "to", provided: "no-such-model-at-all" } });
    expect(w.openai.requests).toHaveLength(0);
  });

  test("a read-only key is refused with 403, a missing key with 401", async () => {
    const { team, secret } = await createTeam(w.relay.relay.store, "Readers", "pro");
    const ro = await createKey(w.relay.relay.store.apiKeys, team.id, "read_only", "dash");
    const refused = await relayCall({ to: "gpt-4o-mini", payload: chatPayload }, {}, ro.secret);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe("permission_denied");
    expect((await relayCall({ to: "gpt-4o-mini", payload: chatPayload }, {}, "")).status).toBe(401);
    expect((await relayCall({ to: "gpt-4o-mini", payload: chatPayload }, {}, secret)).status).toBe(200);
    expect(w.openai.requests).toHaveLength(1);
  });

  test("a stream read by a plain SSE client carries the vendor's events, then the relay event", async () => {
    w.openai.enqueue({ text: "one two three", textChunks: 3 });
    const res = await relayCall({ to: "gpt-4o-mini", payload: { ...chatPayload, stream: true } }, { accept: "text/event-stream" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const text = await res.text();
    const at = text.lastIndexOf("event: relay\n");
    expect(at).toBeGreaterThan(0);
    expect(openaiStreamText(text.slice(0, at))).toEqual({ text: "one two three", done: true, errored: false });
    const last = text.slice(at).split("\n");
    expect(last.slice(2)).toEqual(["", ""]);
    expect(JSON.parse(last[1]!.slice("data: ".length))).toEqual({ relay_id: expect.stringMatching(RELAY_ID), status_code: 200, latency_ms: expect.any(Number), fallback_used: false });
  });

  test("a stream whose vendor refuses before its first event is the relay event alone, with the vendor's error body", async () => {
    w.openai.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "temperature is out of range" });
    const res = await relayCall({ to: "gpt-4o-mini", payload: { ...chatPayload, stream: true } }, { accept: "text/event-stream" });
    const text = await res.text();
    expect(text.startsWith("event: relay\ndata: ")).toBe(true);
    const data = JSON.parse(text.split("\n")[1]!.slice(6));
    expect(data).toMatchObject({ status_code: 400, fallback_used: false, body: { error: { message: expect.stringContaining("temperature is out of range") } } });
  });

  test("every candidate failing is Relay's refusal naming each attempt: 500, or 429 with Retry-After when each was rate limited", async () => {
    w.anthropic.enqueue({ status: 500, errorMessage: "anthropic broke" });
    w.openai.enqueue({ status: 503, errorMessage: "openai overloaded" });
    const { model: __, ...payload } = messagesBody("claude-haiku-4-5");
    const failed = await relayCall({ to: "claude-haiku-4-5", payload });
    expect(failed.status).toBe(500);
    const body = (await failed.json()) as any;
    expect(body).toEqual({
      error: {
        code: "all_candidates_failed",
        message: expect.stringContaining("anthropic broke"),
        attempts: [
          { model: "claude-haiku-4-5", provider: "anthropic", status: 500, message: expect.stringContaining("anthropic broke") },
          { model: "gpt-4o-mini", provider: "openai", status: 503, message: expect.stringContaining("openai overloaded") },
        ],
      },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(failed.headers.get("x-svc-request-id")).toBe(body.request_id);

    w.openai.enqueue({ status: 429, errorType: "rate_limit_exceeded", errorMessage: "slow down", headers: { "retry-after": "30" } });
    const limited = await relayCall({ to: "gpt-4o-mini", payload: { ...chatPayload, stream: true } }, { accept: "text/event-stream" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(((await limited.json()) as any).error).toMatchObject({ code: "rate_limit_exceeded", attempts: [{ model: "gpt-4o-mini", status: 429 }] });
  });

  test("stream without Accept: text/event-stream is a 400 naming accept; a stream refuses an Idempotency-Key", async () => {
    const payload = { ...chatPayload, stream: true };
    await expectInvalid(await relayCall({ to: "gpt-4o-mini", payload }), "accept", "text/event-stream");
    const keyed = await relayCall({ to: "gpt-4o-mini", payload }, { accept: "text/event-stream", "idempotency-key": "s-1" });
    expect(keyed.status).toBe(400);
    expect(((await keyed.json()) as any).error.details.parameter).toBe("idempotency-key");
    expect(w.openai.requests).toHaveLength(0);
  });

  test("an Idempotency-Key retry answers the first relay again without calling the vendor", async () => {
    const body = { to: "gpt-4o-mini", payload: chatPayload };
    const first = await relayCall(body, { "idempotency-key": `k-${driver}` });
    const again = await relayCall(body, { "idempotency-key": `k-${driver}` });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const [a, b] = [(await first.json()) as any, (await again.json()) as any];
    expect(b).toEqual(a);
    expect(a.relay_id).toMatch(RELAY_ID);
    expect(w.openai.requests).toHaveLength(1);
  });

  test("metadata is stored with the run, beside the team and the relay id", async () => {
    const { team, secret } = await createTeam(w.relay.relay.store, "Trackers", "pro");
    const res = await relayCall({ to: "gpt-4o-mini", payload: chatPayload, metadata: { user: "u-7", tags: ["a"] } }, {}, secret);
    const { relay_id } = (await res.json()) as any;
    const run = (await runs(w)).find((r) => r.metadata.svc_relay_id === relay_id);
    expect(run).toMatchObject({ requestedModel: "gpt-4o-mini", status: 200, clientFormat: "openai", teamId: team.id, metadata: { user: "u-7", tags: ["a"], svc_relay_id: relay_id } });
    expect(Object.keys(run!.metadata).sort()).toEqual(["svc_relay_id", "tags", "user"]);
    expect(run!.id).toBe(res.headers.get("x-svc-request-id")!);
  });
});
