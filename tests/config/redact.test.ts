// The one redaction function, and the logger that relies on it: secrets are
// masked at any depth, URL credentials stripped, everything else left alone.
import { describe, expect, test } from "bun:test";
import { redact } from "../../src/config/redact.ts";
import { createLogger } from "../../src/core/log.ts";

const R = "[redacted]";

describe("redact", () => {
  test("masks secret-named fields at any depth, including inside arrays", () => {
    const out = redact({
      apiKey: "sk-top",
      adminToken: "admin-token-1234567",
      providers: { openai: { apiKey: "sk-openai", baseUrl: "https://api.openai.com/v1" } },
      nested: { deeper: { secret: "s1", password: "p1", token: "t1", api_key: "k1", "x-api-key": "k2", authorization: "Bearer b" } },
      list: [{ secret: "in-array" }, { name: "visible" }],
    });
    expect(out.apiKey).toBe(R);
    expect(out.adminToken).toBe(R);
    expect(out.providers.openai.apiKey).toBe(R);
    expect(out.nested.deeper).toEqual({ secret: R, password: R, token: R, api_key: R, "x-api-key": R, authorization: R });
    expect(out.list).toEqual([{ secret: R }, { name: "visible" }]);
  });

  test("leaves other values intact and does not mutate its input", () => {
    const input = { server: { host: "127.0.0.1", port: 4100, corsOrigins: ["https://a.example"] }, enabled: true, none: null, count: 0, apiKey: "" };
    const copy = structuredClone(input);
    const out = redact(input);
    // An empty secret stays empty: "not set" is useful to see.
    expect(out).toEqual(copy);
    expect(input).toEqual(copy);
    expect(out).not.toBe(input);
  });

  test("strips credentials from URLs, standalone or inside text", () => {
    const out = redact({
      store: { postgresUrl: "postgres://user:pass@db.internal:5432/relay" },
      url: "postgres://user:pass@db.internal:5432/relay",
      redis: "redis://:s3cret@cache:6379/0",
      tricky: "postgres://user:p@ss@db/relay",
      note: "cannot reach postgres://user:pass@db.internal/relay (timeout)",
      plain: "https://api.anthropic.com/v1/messages",
      email: "ops@example.com",
    });
    expect(out.store.postgresUrl).toBe(`postgres://${R}@db.internal:5432/relay`);
    expect(out.url).toBe(`postgres://${R}@db.internal:5432/relay`);
    expect(out.redis).toBe(`redis://${R}@cache:6379/0`);
    expect(out.tricky).toBe(`postgres://${R}@db/relay`);
    expect(out.note).toBe(`cannot reach postgres://${R}@db.internal/relay (timeout)`);
    expect(out.plain).toBe("https://api.anthropic.com/v1/messages");
    expect(out.email).toBe("ops@example.com");
    expect(JSON.stringify(out)).not.toMatch(/pass|s3cret|p@ss/);
  });

  test("turns Error objects into name and message, credentials stripped", () => {
    const err = new TypeError("connect ECONNREFUSED postgres://relay:hunter2@10.0.0.5/relay");
    const out = redact({ error: err, errors: [new Error("plain failure")] }) as unknown as Record<string, unknown>;
    expect(out.error).toEqual({ name: "TypeError", message: `connect ECONNREFUSED postgres://${R}@10.0.0.5/relay` });
    expect(out.errors).toEqual([{ name: "Error", message: "plain failure" }]);
    expect(redact(new Error("top-level"))).toEqual({ name: "Error", message: "top-level" } as unknown as Error);
  });
});

describe("logger", () => {
  const planted = {
    key: "sk-ant-PLANTED-0001",
    token: "PLANTED-admin-token-0002",
    pw: "PLANTED-pw-0003",
  };

  function capture(): { lines: string[]; log: ReturnType<typeof createLogger> } {
    const lines: string[] = [];
    return { lines, log: createLogger("debug", (l) => lines.push(l)) };
  }

  test("never prints a planted secret passed in fields, at any level or depth", () => {
    const { lines, log } = capture();
    log.info("provider configured", { apiKey: planted.key, provider: "anthropic" });
    log.warn("admin", { headers: { authorization: `Bearer ${planted.token}` }, config: { adminToken: planted.token } });
    log.error("store failed", { error: new Error(`login failed for postgres://relay:${planted.pw}@db/relay`), url: `postgres://relay:${planted.pw}@db/relay` });
    log.debug("effective config", { providers: { openai: { apiKey: planted.key } }, list: [{ password: planted.pw }] });
    expect(lines).toHaveLength(4);
    const all = lines.join("");
    for (const secret of Object.values(planted)) expect(all).not.toContain(secret);
  });

  test("writes one JSON object per line with the non-secret fields intact", () => {
    const { lines, log } = capture();
    log.info("request", { requestId: "req_1", status: 200, apiKey: planted.key });
    log.error("boom", { error: new RangeError("out of range") });
    expect(lines.every((l) => l.endsWith("\n") && l.indexOf("\n") === l.length - 1)).toBe(true);
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({ level: "info", msg: "request", requestId: "req_1", status: 200, apiKey: R });
    expect(typeof first.time).toBe("string");
    expect(second).toMatchObject({ level: "error", msg: "boom", error: { name: "RangeError", message: "out of range" } });
  });

  test("drops records below the level", () => {
    const lines: string[] = [];
    const log = createLogger("warn", (l) => lines.push(l));
    log.info("hidden");
    log.warn("shown");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["shown"]);
  });
});

describe("secret names and URL userinfo inside JSON text", () => {
  test("isSecretName is the rule redact masks fields by", async () => {
    const { isSecretName } = await import("../../src/config/redact.ts");
    for (const name of ["apiKey", "OPENAI_API_KEY", "adminToken", "RELAY_ADMIN_TOKEN", "password", "AWS_SECRET_ACCESS_KEY", "authorization"]) expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: true });
    for (const name of ["baseUrl", "host", "model", "HOME", "logLevel"]) expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: false });
  });

  test("userinfo is stripped without crossing a quote, so a whole JSON text can be scrubbed and stay valid", async () => {
    const { stripUrlCredentials } = await import("../../src/config/redact.ts");
    const json = JSON.stringify({ a: "http://u:pw@h.example/x", b: "http://h.example", c: "ops@example.com" });
    expect(JSON.parse(stripUrlCredentials(json))).toEqual({ a: `http://${R}@h.example/x`, b: "http://h.example", c: "ops@example.com" });
  });
});

describe("logger scrubbing", () => {
  test("vendor text in a message or a field loses key shapes, query-string keys and known secrets", async () => {
    const { rememberSecrets } = await import("../../src/core/secrets/known.ts");
    rememberSecrets({ providers: { x: { apiKey: "logger-known-key-0001" } } }, {});
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    log.warn("vendor said: Incorrect API key provided: sk-proj-ab***yz", { reason: "GET /m?key=qs-secret-0002&alt=sse", detail: "echo logger-known-key-0001", url: "http://u:pw-0003@h/x" });
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0]!);
    expect(rec).toMatchObject({ level: "warn", msg: `vendor said: Incorrect API key provided: ${R}`, reason: `GET /m?key=${R}&alt=sse`, detail: `echo ${R}`, url: `http://${R}@h/x` });
  });
});
