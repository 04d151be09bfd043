// Administrative surface: kill/enable/disable, status and stats, config merge
// patches (persisted, validated), secret redaction and the admin token.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anthropicStreamText, chatBody, errorOf, getJson, messagesBody, post, readStream, startWorld, type World } from "./world.ts";

const WORDS = Array.from({ length: 30 }, (_, i) => `w${i} `);
const FULL_TEXT = WORDS.join("");

// Admin routes need the admin token on loopback too (issue 34): sent unless a test passes other headers.
const control = (world: World, path: string, body?: unknown, headers: Record<string, string> = world.relay.admin) =>
  body === undefined ? fetch(`${world.url}${path}`, { headers }) : post(world.url, path, body, headers);

/**
 * Open a slow Anthropic stream on /v1/messages. Relay answers only after the vendor's
 * first event, so once this resolves the request is in flight and tracked.
 */
async function openStream(world: World, session?: string): Promise<Response> {
  const headers: Record<string, string> = { "x-api-key": "sk-ant-client", "anthropic-version": "2023-06-01" };
  if (session) headers["x-svc-session"] = session;
  const res = await post(world.url, "/v1/messages", messagesBody("claude-haiku-4-5", "count", { stream: true }), headers);
  expect(res.status).toBe(200);
  return res;
}

describe("sessions and routing switches", () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ config: { routing: { strategies: { fallback: { chains: { "claude-haiku-4-5": ["gpt-4o-mini"] } } } } } });
  });
  afterAll(() => w.stop());
  afterEach(async () => {
    await control(w, "/control/enable", {});
    w.openai.reset();
    w.anthropic.reset();
  });

  test("killing session A ends its stream early while session B completes; A is refused until enable", async () => {
    w.anthropic.setDefault({ text: FULL_TEXT, textChunks: WORDS.length, chunkDelayMs: 40 });
    const [a, b] = await Promise.all([openStream(w, "A"), openStream(w, "B")]);

    const killed = await control(w, "/control/kill", { sessionKey: "A" });
    expect(killed.status).toBe(200);
    expect(await killed.json()).toEqual({ killed: "A", aborted: 1 });

    const [aRead, bRead] = await Promise.all([readStream(a), readStream(b)]);
    expect(aRead.stalled || bRead.stalled).toBe(false);
    const aStream = anthropicStreamText(aRead.text);
    expect(aStream.text.length).toBeLessThan(FULL_TEXT.length);
    expect(FULL_TEXT.startsWith(aStream.text)).toBe(true);
    expect(aStream.complete).toBe(false);
    expect(anthropicStreamText(bRead.text)).toEqual({ text: FULL_TEXT, complete: true });

    const refused = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"), { "x-svc-session": "A" });
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe("session_killed");
    expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"), { "x-svc-session": "B" })).status).toBe(200);
    const status = await getJson(w.url, "/control/status", w.relay.admin);
    expect(status.killedSessions).toEqual(["A"]);

    expect((await control(w, "/control/enable", {})).status).toBe(200);
    expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"), { "x-svc-session": "A" })).status).toBe(200);
  });

  test("kill {all: true} aborts every in-flight request and refuses new ones until enable", async () => {
    w.anthropic.setDefault({ text: FULL_TEXT, textChunks: WORDS.length, chunkDelayMs: 40 });
    const anonymous = await openStream(w);
    const killed = (await (await control(w, "/control/kill", { all: true })).json()) as any;
    expect(killed).toEqual({ killed: "all", aborted: 1 });
    const read = await readStream(anonymous);
    expect(read.stalled).toBe(false);
    expect(anthropicStreamText(read.text).text.length).toBeLessThan(FULL_TEXT.length);

    expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(403);
    expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"), { "x-svc-session": "C" })).status).toBe(403);
    await control(w, "/control/enable", {});
    expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(200);
  });

  test("kill with neither sessionKey nor all is a 400", async () => {
    const res = await control(w, "/control/kill", { session: "A" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details.parameter).toBe("sessionKey");
  });

  test("disable makes Relay a pure passthrough: no virtual models, no fallback", async () => {
    expect(await (await control(w, "/control/disable", {})).json()).toEqual({ routing: "disabled" });
    expect((await getJson(w.url, "/control/status", w.relay.admin)).routingEnabled).toBe(false);

    const virtual = await post(w.url, "/v1/chat/completions", chatBody("svc:auto"));
    expect(virtual.status).toBe(400);
    expect((await errorOf(virtual)).code).toBe("routing_disabled");

    const direct = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    expect(direct.status).toBe(200);
    expect(direct.headers.get("x-svc-strategy")).toBe("passthrough");

    w.anthropic.enqueue({ status: 529, errorType: "overloaded_error" });
    const failed = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"));
    expect(failed.status).toBe(529);
    expect(w.openai.requests).toHaveLength(1); // only the direct gpt-4o-mini call above

    expect(await (await control(w, "/control/enable", {})).json()).toEqual({ routing: "enabled" });
    expect((await post(w.url, "/v1/chat/completions", chatBody("svc:auto"))).status).toBe(200);
  });

  test("/control/status and /control/stats shapes", async () => {
    await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    await w.relay.relay.writer.flush();
    const status = await getJson(w.url, "/control/status", w.relay.admin);
    expect(status).toMatchObject({ routingEnabled: true, killedSessions: [], killedAll: false, inflight: 0, activeSessions: 0 });
    expect(typeof status.version).toBe("string");
    expect(typeof status.uptime).toBe("number");
    const openai = status.providers.find((p: any) => p.provider === "openai");
    expect(openai).toMatchObject({ credentials: true, state: "available", recentFailures: 0 });
    expect(status.providers.find((p: any) => p.provider === "google")).toMatchObject({ credentials: false, state: "no_credentials" });
    expect(status.plugins).toEqual({ loaded: [], failed: [] });

    const stats = await getJson(w.url, "/control/stats", w.relay.admin);
    expect(stats.window).toBe("24h");
    expect(stats.totals.requests).toBeGreaterThan(0);
    for (const k of ["errors", "inputTokens", "outputTokens", "costUsd", "fallbacks"]) expect(typeof stats.totals[k]).toBe("number");
    for (const win of ["hourly", "daily"]) expect(stats.budget[win]).toMatchObject({ spentUsd: expect.any(Number), reservedUsd: 0, resetsInSec: expect.any(Number) });
    expect(stats.runLog.pending).toBe(0);
  });
});

// Guards the fix in stream-pump.ts: a stream aborted by a kill ends as "cancelled", which is no
// evidence against the vendor and must not count toward its cooldown.
test("killing a session does not count against its provider's health", async () => {
  const w = await startWorld({ config: { cooldown: { failures: 1 } } });
  try {
    w.anthropic.setDefault({ text: FULL_TEXT, textChunks: WORDS.length, chunkDelayMs: 40 });
    const stream = await openStream(w, "A");
    await control(w, "/control/kill", { sessionKey: "A" });
    await readStream(stream);
    w.anthropic.setDefault({ text: "still healthy" });
    const res = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"), { "x-svc-session": "B" });
    expect(res.status).toBe(200);
  } finally {
    await w.stop();
  }
});

describe("config merge patch", () => {
  test("a patch is validated, written to disk, applied, and survives a restart", async () => {
    const home = mkdtempSync(join(tmpdir(), "relay-proxy-restart-"));
    const file = join(home, "config.json");
    try {
      const first = await startWorld({ home });
      try {
        const res = await control(first, "/control/config", { limits: { rpmDefault: 7 } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as any).config.limits.rpmDefault).toBe(7);
        expect(JSON.parse(readFileSync(file, "utf8")).limits.rpmDefault).toBe(7);
        expect((await getJson(first.url, "/v1/config", first.relay.admin)).limits.rpmDefault).toBe(7);
      } finally {
        await first.stop();
      }
      const second = await startWorld({ home });
      try {
        expect((await getJson(second.url, "/v1/config", second.relay.admin)).limits.rpmDefault).toBe(7);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an invalid patch is a 400 and leaves the file byte for byte unchanged", async () => {
    const w = await startWorld({ config: { limits: { rpmDefault: 3 } } });
    try {
      const file = join(w.relay.home, "config.json");
      const before = readFileSync(file);
      // server.port is file-only since issue 34 (a 403, tests/security/config-patch.test.ts): an editable setting here.
      const res = await control(w, "/control/config", { server: { bodyLimitBytes: "x" } });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_config");
      expect(readFileSync(file).equals(before)).toBe(true);
      expect((await getJson(w.url, "/v1/config", w.relay.admin)).server.bodyLimitBytes).toBe(10 * 1024 * 1024);
      expect((await control(w, "/control/config", "[1]")).status).toBe(400);
      expect(readFileSync(file).equals(before)).toBe(true);
    } finally {
      await w.stop();
    }
  });
});

describe("secrets and admin auth", () => {
  const ADMIN = "PLANTED-admin-token-3333";
  const planted = ["sk-ant-PLANTED-anthropic-1111", "sk-PLANTED-openai-2222", ADMIN, "PLANTED-provider-x-4444"];

  test("/v1/config, /dashboard/config and /control/status never contain secret values", async () => {
    const w = await startWorld({
      env: { ANTHROPIC_API_KEY: planted[0]!, OPENAI_API_KEY: planted[1]! },
      config: { adminToken: ADMIN, providers: { x: { apiKey: planted[3]! } } },
    });
    try {
      const auth = { authorization: `Bearer ${ADMIN}` };
      for (const path of ["/v1/config", "/dashboard/config", "/control/status"]) {
        const res = await control(w, path, undefined, auth);
        expect(res.status).toBe(200);
        const text = await res.text();
        for (const secret of planted) expect(text).not.toContain(secret);
        if (path !== "/control/status") expect(text).toContain("[redacted]");
      }
    } finally {
      await w.stop();
    }
  });

  test("off loopback an admin token is required: none or a wrong one is 401, the right one 200", async () => {
    const token = "correct-horse-battery-staple";
    const w = await startWorld({ config: { server: { host: "0.0.0.0" }, adminToken: token } });
    try {
      for (const path of ["/control/status", "/v1/config", "/v1/telemetry/runs"]) {
        expect((await control(w, path, undefined, {})).status).toBe(401);
        expect((await control(w, path, undefined, { authorization: "Bearer wrong-token-wrong-token" })).status).toBe(401);
        expect((await control(w, path, undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
      }
      expect((await control(w, "/control/disable", {}, { "content-type": "application/json" })).status).toBe(401);
      expect(w.relay.relay.control.routingEnabled).toBe(true);
    } finally {
      await w.stop();
    }
  });
});
