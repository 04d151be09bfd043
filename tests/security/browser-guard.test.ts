// Issue 34, "Must deliver" 1 and 2: browsers judged by parsed facts (Host 421,
// Origin 403, JSON content type 415), and admin access (always a token: the
// configured one or the install's own; the dashboard's per-listener cookie).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { listen } from "../../src/runtime/serve.ts";
import { hostEnd, isJsonType } from "../../src/surfaces/browser-guard.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { isLoopback, isLoopbackName, splitHost } from "../../src/core/net/loopback.ts";
import { FROM_SOURCE, childEnv, freePort, run, tempDir } from "../cli/relay-process.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

describe("loopback is parsed, never prefix-matched", () => {
  test("listen addresses", () => {
    for (const h of ["127.0.0.1", "127.255.0.9", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", " 127.0.0.1 "]) expect({ h, loop: isLoopback(h) }).toEqual({ h, loop: true });
    for (const h of ["127.0.0.1.attacker.example", "127.attacker.example", "localhost.attacker.example", "0.0.0.0", "::", "128.0.0.1", "127.0.0.256", "127.0.0", "127.0.0.1.", "127.00.0.1", "127.1", "::2", "[::1]x", "", "x127.0.0.1"]) {
      expect({ h, loop: isLoopback(h) }).toEqual({ h, loop: false });
    }
  });

  test("Host names (as the server normalizes them)", () => {
    expect(["localhost", "127.0.0.1", "127.3.2.1", "[::1]"].every(isLoopbackName)).toBe(true);
    expect(["127.0.0.1.attacker.example", "::1", "localhost.", "attacker.example", "[::2]"].some(isLoopbackName)).toBe(false);
  });

  test("Host splitting: name, port, IPv6 brackets; anything else is unusable", () => {
    expect(splitHost("127.0.0.1:4100")).toEqual({ name: "127.0.0.1", port: 4100 });
    expect(splitHost("[::1]:4100")).toEqual({ name: "[::1]", port: 4100 });
    expect(splitHost("[::1]")).toEqual({ name: "[::1]", port: undefined });
    expect(splitHost("Relay.Example")).toEqual({ name: "relay.example", port: undefined });
    for (const bad of ["", ":4100", "a:", "a:x", "a:99999", "a:123456", "[::1", "[::1]4100", "a:1:2"]) expect({ bad, got: splitHost(bad) }).toEqual({ bad, got: undefined });
  });

  test("the host of a request URL", () => {
    const url = "http://127.0.0.1:4100/v1/messages?x=1";
    expect(url.slice(7, hostEnd(url))).toBe("127.0.0.1:4100");
    expect(hostEnd("http://127.0.0.1:4100")).toBe(21);
    expect(hostEnd("/v1/messages")).toBe(-1);
    expect(hostEnd("http:///x")).toBe(-1);
  });

  test("JSON content types", () => {
    for (const t of ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json", " application/json ;x=y"]) expect({ t, json: isJsonType(t) }).toEqual({ t, json: true });
    for (const t of [null, "", "text/plain", "text/plain;charset=UTF-8", "text/plain; x=application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "+json", "text/plain, application/json"]) {
      expect({ t, json: isJsonType(t) }).toEqual({ t, json: false });
    }
  });
});

describe("a loopback listener", () => {
  let vendor: FakeVendor;
  let r: TestRelay;
  let allowed: TestRelay;
  let port: string;
  beforeAll(async () => {
    vendor = await startFakeVendor("openai");
    const env = { OPENAI_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: "sk-guard" };
    r = await startRelay({ env, config: { server: { corsOrigins: ["https://app.example"] } } });
    allowed = await startRelay({ env, config: { server: { allowedHosts: ["relay.example", "other.example:8443"] } } });
    port = new URL(r.url).port;
  });
  afterAll(async () => {
    await Promise.all([r?.stop(), allowed?.stop()]);
    await vendor?.close();
  });

  const chat = (url: string, headers: Record<string, string>) =>
    fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }) });

  test("answers loopback names with its own port, and refuses other Hosts with 421 naming server.allowedHosts", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `127.9.9.9:${port}`]) expect({ host, status: (await fetch(`${r.url}/health`, { headers: { host } })).status }).toEqual({ host, status: 200 });
    for (const host of [`127.0.0.1.attacker.example:${port}`, "localhost", `localhost:${Number(port) + 1}`, "127.0.0.1", `attacker.example:${port}`, `[::2]:${port}`, `relay.example:${port}`]) {
      const res = await fetch(`${r.url}/health`, { headers: { host } });
      expect({ host, status: res.status }).toEqual({ host, status: 421 });
      expect(((await res.json()) as any).error.message).toContain("server.allowedHosts");
    }
  });

  test("server.allowedHosts adds names: any port when none is given, else that port", async () => {
    const p = new URL(allowed.url).port;
    for (const host of ["relay.example", `relay.example:${p}`, "other.example:8443", `localhost:${p}`]) expect({ host, status: (await fetch(`${allowed.url}/health`, { headers: { host } })).status }).toEqual({ host, status: 200 });
    for (const host of ["other.example", "other.example:443", "sub.relay.example", "relay.example.attacker.example"]) expect({ host, status: (await fetch(`${allowed.url}/health`, { headers: { host } })).status }).toEqual({ host, status: 421 });
  });

  test("an Origin must be the listener's own or in server.corsOrigins: http://localhost:3000 is another origin", async () => {
    const before = vendor.requests.length;
    for (const origin of ["http://localhost:3000", `http://127.0.0.1.attacker.example:${port}`, "null", `https://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const res = await chat(r.url, { origin });
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
      // Proxy routes answer in the client's wire format.
      expect(((await res.json()) as any).error).toMatchObject({ type: "permission_error", code: "forbidden_origin" });
    }
    expect(vendor.requests.length).toBe(before);
    // The page's own origin (as the browser names it, matching the Host it sent), and a listed one.
    expect((await chat(r.url, { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await chat(r.url, { origin: `http://localhost:${port}`, host: `localhost:${port}` })).status).toBe(200);
    expect((await chat(r.url, { origin: "https://app.example" })).status).toBe(200);
  });

  test("a POST without a JSON content type is a 415 in the route's error shape, before any vendor call", async () => {
    const before = vendor.requests.length;
    for (const [path, type] of [["/v1/messages", "invalid_request_error"], ["/v1/chat/completions", "invalid_request_error"], ["/control/disable", undefined]] as const) {
      for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
        const res = await fetch(`${r.url}${path}`, { method: "POST", headers: { ...r.admin, "content-type": contentType }, body: "{}" });
        expect({ path, contentType, status: res.status }).toEqual({ path, contentType, status: 415 });
        const body = (await res.json()) as any;
        expect(body.error.code).toBe("unsupported_media_type");
        if (type) expect(body.error.type).toBe(type);
        expect(body.error.message).toContain("Content-Type: application/json");
      }
    }
    expect(vendor.requests.length).toBe(before);
    expect(r.relay.control.routingEnabled).toBe(true);
  });
});

test("the `relay cloud` listener is guarded the same way, with its own port", async () => {
  const r = await startRelay();
  const cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 10 });
  try {
    const get = (headers: Record<string, string>) => fetch(`${cloud.url}/health`, { headers }).then((res) => res.status);
    expect(await get({})).toBe(200);
    expect(await get({ host: `attacker.example:${cloud.port}` })).toBe(421);
    // The proxy's port is another listener's.
    expect(await get({ host: `127.0.0.1:${r.listener.port}` })).toBe(421);
    expect(await get({ origin: r.url })).toBe(403);
    expect(await get({ origin: cloud.url })).toBe(200);
  } finally {
    await cloud.stop(100);
    await r.stop();
  }
});

describe("admin access", () => {
  let r: TestRelay;
  let port: string;
  beforeAll(async () => {
    r = await startRelay();
    port = new URL(r.url).port;
  });
  afterAll(() => r?.stop());

  test("without a configured token, the install's own is created 0600 in $RELAY_HOME and required", async () => {
    const file = join(r.home, "admin-token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, "utf8").trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).toBe(r.adminToken);
    expect((await fetch(`${r.url}/v1/config`)).status).toBe(401);
    expect((await fetch(`${r.url}/v1/config`, { headers: { authorization: "Bearer not-the-token-0000000" } })).status).toBe(401);
    expect((await fetch(`${r.url}/v1/config`, { headers: r.admin })).status).toBe(200);
    // The file is the token: another Relay on the same home uses the same one.
    const again = await startRelay({ home: r.home });
    try {
      expect(again.adminToken).toBe(token);
      expect((await fetch(`${again.url}/v1/config`, { headers: r.admin })).status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  test("a configured token replaces the install's own", async () => {
    const configured = await startRelay({ env: { RELAY_ADMIN_TOKEN: "configured-admin-token-01234" }, home: r.home });
    try {
      expect((await fetch(`${configured.url}/v1/config`, { headers: r.admin })).status).toBe(401);
      expect((await fetch(`${configured.url}/v1/config`, { headers: { authorization: "Bearer configured-admin-token-01234" } })).status).toBe(200);
    } finally {
      await configured.stop();
    }
  });

  const login = (token: string, headers: Record<string, string> = {}) =>
    fetch(`${r.url}/dashboard/login`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ token }) });

  test("the sign-in endpoint sets this listener's session cookie: HttpOnly, SameSite=Strict, named with the port, not the token", async () => {
    const wrong = await login("not-the-token-0000000");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const res = await login(r.adminToken);
    expect(res.status).toBe(204);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(new RegExp(`^relay_admin_${port}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict$`));
    expect(cookie).not.toContain(r.adminToken);
    // A foreign page cannot sign a browser in (CSRF on the sign-in itself).
    expect((await login(r.adminToken, { origin: "https://attacker.example" })).status).toBe(403);
    expect(r.logs.join("\n")).not.toContain(r.adminToken);
  });

  test("the cookie admits its own listener's pages only: not another port's cookie, not a listed foreign origin", async () => {
    const pair = (await (await login(r.adminToken)).headers.get("set-cookie"))!.split(";")[0]!;
    const [name, value] = pair.split("=") as [string, string];
    const get = (headers: Record<string, string>) => fetch(`${r.url}/dashboard/api/live`, { headers });
    expect((await get({ cookie: pair })).status).toBe(200);
    expect((await get({ cookie: `other=1; ${pair}`, origin: r.url })).status).toBe(200);
    expect((await get({ cookie: `relay_admin_${Number(port) + 1}=${value}` })).status).toBe(401);
    expect((await get({ cookie: `${name}=${value.slice(0, -1)}x` })).status).toBe(401);
    expect((await get({ cookie: `${name}=${r.adminToken}` })).status).toBe(401);
    // Cookie-authenticated changes need the page's own Origin and JSON like any other.
    const disable = (headers: Record<string, string>) => fetch(`${r.url}/control/disable`, { method: "POST", headers: { cookie: pair, ...headers } });
    expect((await disable({ origin: "http://localhost:3000", "content-type": "application/json" })).status).toBe(403);
    expect((await disable({ origin: r.url, "content-type": "text/plain" })).status).toBe(415);
    expect(r.relay.control.routingEnabled).toBe(true);
    expect((await disable({ origin: r.url, "content-type": "application/json" })).status).toBe(200);
    r.relay.control.enable();
  });

  test("a cookie does not count for an origin listed in server.corsOrigins: such a page must send the bearer token", async () => {
    const listed = await startRelay({ config: { server: { corsOrigins: ["https://app.example"] } } });
    try {
      const pair = (await fetch(`${listed.url}/dashboard/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: listed.adminToken }) })).headers.get("set-cookie")!.split(";")[0]!;
      expect((await fetch(`${listed.url}/v1/config`, { headers: { cookie: pair, origin: "https://app.example" } })).status).toBe(401);
      expect((await fetch(`${listed.url}/v1/config`, { headers: { ...listed.admin, origin: "https://app.example" } })).status).toBe(200);
    } finally {
      await listed.stop();
    }
  });
});

describe("the CLI and the start-up check", () => {
  test("`relay dashboard` prints the sign-in link with the install's token; `relay status` uses the token", async () => {
    const r = await startRelay();
    try {
      const port = new URL(r.url).port;
      const link = await run([...FROM_SOURCE, "dashboard", "--port", port], { env: childEnv(r.home) });
      expect(link.code).toBe(0);
      expect(link.stdout).toContain(`http://127.0.0.1:${port}/dashboard/login#${r.adminToken}`);
      expect(link.stdout).not.toContain("not answering");
      const status = await run([...FROM_SOURCE, "status", "--port", port], { env: childEnv(r.home) });
      expect(status.code).toBe(0);
      expect(status.stdout).toContain("is running");
    } finally {
      await r.stop();
    }
  }, 20_000);

  test("a listen address that only starts like loopback needs a token to start", async () => {
    const home = tempDir("lookalike");
    try {
      const r = await run([...FROM_SOURCE, "start", "--host", "127.0.0.1.attacker.example", "--port", String(await freePort())], { env: childEnv(home) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("refusing to listen on 127.0.0.1.attacker.example");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
