// Issue 6.5: the security guarantees SECURITY.md promises. Admin routes off
// loopback, constant-time token comparison, secrets never leaving Relay, a
// client's key never reaching another vendor, CORS, dashboard headers, CSRF.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokenMatches } from "../../src/surfaces/admin-auth.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { FROM_SOURCE, childEnv, freePort, run, tempDir } from "../cli/relay-process.ts";
import { rmSync } from "node:fs";

const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-PLANTED1anthropic",
  OPENAI_API_KEY: "sk-PLANTED2openai",
  GEMINI_API_KEY: "PLANTED3gemini",
  RELAY_ADMIN_TOKEN: "PLANTED4admin-token-0123456789",
  fileKey: "PLANTED5file-provider-key",
  pgPassword: "PLANTED6pgpass",
  clientBearer: "sk-PLANTED7client-bearer",
} as const;
const planted = Object.values(SECRETS);
const ADMIN = { authorization: `Bearer ${SECRETS.RELAY_ADMIN_TOKEN}` };
/** Every POST declares JSON (issue 34: other POSTs are refused with 415 before any route). */
const JSON_TYPE = { "content-type": "application/json" };
const ADMIN_ROUTES = ["/control/status", "/control/stats", "/v1/config", "/dashboard/config", "/dashboard/api/summary", "/dashboard/api/runs", "/v1/telemetry/runs"];

let openai: FakeVendor;
let anthropic: FakeVendor;
let gemini: FakeVendor;
/** Bound (as far as the admin check knows) beyond loopback, with a token. */
let exposed: TestRelay;

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startFakeVendor("openai"), startFakeVendor("anthropic"), startFakeVendor("gemini")]);
  exposed = await startRelay({
    env: {
      OPENAI_BASE_URL: `${openai.url}/v1`,
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_BASE_URL: gemini.url,
      OPENAI_API_KEY: SECRETS.OPENAI_API_KEY,
      ANTHROPIC_API_KEY: SECRETS.ANTHROPIC_API_KEY,
      GEMINI_API_KEY: SECRETS.GEMINI_API_KEY,
      RELAY_ADMIN_TOKEN: SECRETS.RELAY_ADMIN_TOKEN,
    },
    config: {
      // requireAdmin reads the configured host; the test listener itself stays on 127.0.0.1.
      server: { host: "0.0.0.0", upstreamTimeoutMs: 1000 },
      providers: { ollama: { apiKey: SECRETS.fileKey } },
      store: { driver: "sqlite", postgresUrl: `postgres://relay:${SECRETS.pgPassword}@db.example:5432/relay` },
      routing: { strategies: { fallback: { chains: { "gpt-4o": ["claude-haiku-4-5"] } } } },
    },
  });
});
afterAll(async () => {
  await exposed?.stop();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});

describe("admin routes beyond loopback", () => {
  test("refuse callers without the token, or with a wrong one, and admit the right one", async () => {
    for (const path of ADMIN_ROUTES) {
      expect({ path, status: (await fetch(`${exposed.url}${path}`)).status }).toEqual({ path, status: 401 });
      const wrong = await fetch(`${exposed.url}${path}`, { headers: { authorization: `Bearer ${SECRETS.RELAY_ADMIN_TOKEN}x` } });
      expect({ path, status: wrong.status }).toEqual({ path, status: 401 });
      expect({ path, status: (await fetch(`${exposed.url}${path}`, { headers: ADMIN })).status }).toEqual({ path, status: 200 });
    }
    const disable = await fetch(`${exposed.url}/control/disable`, { method: "POST", headers: JSON_TYPE });
    expect(disable.status).toBe(401);
    expect(exposed.relay.control.routingEnabled).toBe(true);
  });

  test("the server refuses to start on a public address without an admin token", async () => {
    const home = tempDir("public");
    try {
      const port = await freePort();
      const r = await run([...FROM_SOURCE, "start", "--host", "0.0.0.0", "--port", String(port)], { env: childEnv(home) });
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain("RELAY_ADMIN_TOKEN");
      // Nothing is listening.
      expect(await fetch(`http://127.0.0.1:${port}/health`).then(() => "answered", () => "refused")).toBe("refused");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("tokenMatches", () => {
  const token = "0123456789abcdef-token";
  test("accepts only the exact token", () => {
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(`${token.slice(0, -1)}X`, token)).toBe(false);
    expect(tokenMatches(token.toUpperCase(), token)).toBe(false);
  });
  test("different lengths never match, including prefixes and zero-padded extensions", () => {
    expect(tokenMatches("", token)).toBe(false);
    expect(tokenMatches(token.slice(0, 8), token)).toBe(false);
    expect(tokenMatches(`${token}x`, token)).toBe(false);
    // Padding to a common length must not make a shorter value equal: the NUL-extended form differs in length.
    expect(tokenMatches(`${token}\u0000`, token)).toBe(false);
    expect(tokenMatches(token, `${token}\u0000`)).toBe(false);
  });
  test("compares bytes of the UTF-8 encoding", () => {
    expect(tokenMatches("tökenvalue-0123456", "tökenvalue-0123456")).toBe(true);
    expect(tokenMatches("tokenvalue-0123456", "tökenvalue-0123456")).toBe(false);
  });
});

describe("secrets never leave Relay", () => {
  test("not in any body, header or log line, across successes, failures and every admin view", async () => {
    const seen: string[] = [];
    const record = async (res: Response, what: string) => {
      seen.push(`${what} ${res.status} ${JSON.stringify([...res.headers])} ${await res.text()}`);
    };
    const chat = (model: string, extra: Record<string, string> = {}) =>
      fetch(`${exposed.url}/v1/chat/completions`, { method: "POST", headers: { ...JSON_TYPE, ...extra }, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });
    // Traffic: answers, vendor failures with and without fallback, streams, client errors.
    await record(await chat("gpt-4o-mini"), "ok");
    await record(await chat("gemini-2.5-flash"), "gemini");
    openai.enqueue({ status: 401, errorMessage: "Incorrect API key provided" });
    await record(await chat("gpt-4o-mini"), "vendor 401");
    openai.enqueue({ status: 500 });
    await record(await chat("gpt-4o"), "fallback");
    await record(await chat("no-such-model"), "not found");
    await record(await fetch(`${exposed.url}/v1/messages`, { method: "POST", headers: JSON_TYPE, body: "{bad" }), "bad json");
    anthropic.enqueue({ fault: "never-answer" });
    await record(
      await fetch(`${exposed.url}/v1/messages`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 8, stream: true, messages: [{ role: "user", content: "hi" }] }) }),
      "stream timing out",
    );
    for (const path of [...ADMIN_ROUTES, "/dashboard/api/series", "/dashboard/api/live", "/v1/telemetry/stats", "/v1/telemetry/health", "/v1/telemetry/savings", "/openapi.json", "/dashboard", "/dashboard/settings", "/v1/models", "/health"])
      await record(await fetch(`${exposed.url}${path}`, { headers: ADMIN }), path);
    await record(await fetch(`${exposed.url}/control/config`, { method: "POST", headers: { ...ADMIN, ...JSON_TYPE }, body: JSON.stringify({ logLevel: "debug" }) }), "patch");
    await record(await fetch(`${exposed.url}/control/config`, { method: "POST", headers: { ...ADMIN, ...JSON_TYPE }, body: JSON.stringify({ adminToken: 5 }) }), "bad patch");
    const runId = ((await (await fetch(`${exposed.url}/dashboard/api/runs`, { headers: ADMIN })).json()) as any).runs?.[0]?.id;
    if (runId) await record(await fetch(`${exposed.url}/dashboard/api/runs/${runId}`, { headers: ADMIN }), "run");

    expect(seen.length).toBeGreaterThan(25);
    const everything = [...seen, ...exposed.logs];
    for (const secret of planted) {
      const leaks = everything.filter((s) => s.includes(secret));
      expect({ secret, leaks }).toEqual({ secret, leaks: [] });
    }
    // The admin views did show the redacted form, so the scan looked at real config output.
    expect(seen.find((s) => s.startsWith("/v1/config"))).toContain("[redacted]");
  }, 15_000);

  test("a client's bearer key is never forwarded to another vendor on fallback", async () => {
    const before = { openai: openai.requests.length, anthropic: anthropic.requests.length };
    openai.enqueue({ status: 503 });
    const res = await fetch(`${exposed.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...JSON_TYPE, authorization: `Bearer ${SECRETS.clientBearer}`, "x-api-key": SECRETS.clientBearer },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-fallback-used")).toBe("true");
    const received = [...openai.requests.slice(before.openai), ...anthropic.requests.slice(before.anthropic)];
    expect(received).toHaveLength(2);
    for (const r of received) expect(JSON.stringify(r)).not.toContain(SECRETS.clientBearer);
    // Each vendor got its own operator key instead.
    expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRETS.OPENAI_API_KEY}`);
    expect(anthropic.requests.at(-1)!.headers["x-api-key"]).toBe(SECRETS.ANTHROPIC_API_KEY);
  });
});

describe("browsers", () => {
  let local: TestRelay;
  let cors: TestRelay;
  beforeAll(async () => {
    local = await startRelay();
    cors = await startRelay({ config: { server: { corsOrigins: ["https://app.example"] } } });
  });
  afterAll(async () => {
    await Promise.all([local?.stop(), cors?.stop()]);
  });

  const preflight = (url: string, origin: string) =>
    fetch(`${url}/v1/chat/completions`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
  const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith("access-control-"));

  test("CORS is off by default: no Access-Control headers, preflights not allowed, foreign origins refused", async () => {
    const res = await fetch(`${local.url}/v1/models`, { headers: { origin: "https://app.example" } });
    expect(res.status).toBe(403);
    expect(corsHeaders(res)).toEqual([]);
    const pre = await preflight(local.url, "https://app.example");
    expect(pre.status).toBeGreaterThanOrEqual(400);
    expect(corsHeaders(pre)).toEqual([]);
  });

  test("CORS allows exactly the configured origins", async () => {
    const ok = await preflight(cors.url, "https://app.example");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const evil = await preflight(cors.url, "https://evil.example");
    expect(evil.status).toBe(403);
    expect(corsHeaders(evil)).toEqual([]);
    const get = await fetch(`${cors.url}/v1/models`, { headers: { origin: "https://evil.example" } });
    expect(get.status).toBe(403);
    expect(corsHeaders(get)).toEqual([]);
    const listed = await fetch(`${cors.url}/v1/models`, { headers: { origin: "https://app.example" } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  test("the dashboard sends a CSP without inline script and forbids framing; its HTML has no inline script", async () => {
    for (const path of ["/", "/dashboard", "/dashboard/settings"]) {
      const res = await fetch(`${local.url}${path}`);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const html = await res.text();
      expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g) ?? []).toEqual([]);
      expect(html).not.toMatch(/\son[a-z]+=/i);
    }
  });

  test("a cross-site admin action is refused on loopback (CSRF), even with the token", async () => {
    const res = await fetch(`${local.url}/control/disable`, { method: "POST", headers: { origin: "https://evil.example", ...local.adminJson } });
    expect(res.status).toBe(403);
    expect(local.relay.control.routingEnabled).toBe(true);
    // The dashboard's own origin is allowed, with the token.
    const same = await fetch(`${local.url}/control/disable`, { method: "POST", headers: { origin: local.url, ...local.adminJson } });
    expect(same.status).toBe(200);
    expect(local.relay.control.routingEnabled).toBe(false);
    local.relay.control.enable();
  });
});
