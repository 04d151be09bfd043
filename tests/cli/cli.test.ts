// The `relay` command line, run as a real subprocess from source: help and
// version, strict usage errors (exit 2, one line), config errors, the
// loopback/admin-token rule, the systemd unit, and a started server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOT_FOUND_MESSAGE } from "../../src/surfaces/app.ts";
import { VERSION } from "../../src/version.ts";
import { BUN, FROM_SOURCE, SERVER, childEnv, freePort, run, startRelayProcess, tempDir, type RunningRelay } from "./relay-process.ts";

const home = tempDir("cli");
afterAll(() => rmSync(home, { recursive: true, force: true }));

const relay = (...args: string[]) => run([...FROM_SOURCE, ...args], { env: childEnv(home) });

/** A usage error: exit 2 and exactly one line on stderr, nothing on stdout. */
function expectUsageError(r: { code: number | null; stdout: string; stderr: string }, ...fragments: string[]) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  for (const f of fragments) expect(r.stderr).toContain(f);
}

describe("help and version", () => {
  test("relay --help lists the commands", async () => {
    const r = await relay("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: relay [command] [flags]");
    for (const cmd of ["start", "cloud", "service", "version"]) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, "m"));
    expect(r.stderr).toBe("");
  });

  test("relay start --help describes its flags", async () => {
    const r = await relay("start", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: relay start");
    expect(r.stdout).toContain("--port");
    expect(r.stdout).toContain("RELAY_ADMIN_TOKEN");
  });

  test("relay version prints the version", async () => {
    const r = await relay("version");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`relay ${VERSION}\n`);
  });
});

describe("usage errors exit 2 with one line", () => {
  test("unknown flag", async () => expectUsageError(await relay("start", "--bogus"), "--bogus"));
  test("port out of range", async () => expectUsageError(await relay("start", "--port", "99999"), "--port", "99999"));
  test("port that is not a number", async () => expectUsageError(await relay("start", "--port", "http"), "--port"));
  test("unknown command", async () => expectUsageError(await relay("frobnicate"), 'unknown command "frobnicate"'));
  test("bad log level", async () => expectUsageError(await relay("start", "--log-level", "loud"), "--log-level"));
});

describe("configuration errors", () => {
  test("an invalid config file names the file and the JSON path", async () => {
    const file = join(home, "bad-config.json");
    writeFileSync(file, JSON.stringify({ server: { port: "abc" } }));
    const r = await relay("start", "--config", file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain("/server/port");
    expect(r.stderr.toLowerCase()).toContain("integer");
  });

  test("--config naming a missing file fails", async () => {
    const missing = join(home, "missing.json");
    const r = await relay("start", "--config", missing);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(missing);
    expect(r.stderr).toContain("does not exist");
  });

  test("RELAY_PORT that is not a number fails naming the variable", async () => {
    const r = await run([...FROM_SOURCE, "start"], { env: childEnv(home, { RELAY_PORT: "abc" }) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("RELAY_PORT");
  });
});

describe("listening beyond loopback", () => {
  test("refuses without an admin token, saying why", async () => {
    const r = await relay("start", "--host", "0.0.0.0", "--port", String(await freePort()));
    expectUsageError(r, "refusing to listen on 0.0.0.0", "RELAY_ADMIN_TOKEN");
  });

  test("starts with a 16+ character token, and admin routes then require it", async () => {
    const token = "t0ken-of-sixteen-plus-chars";
    const server = await startRelayProcess(FROM_SOURCE, { env: childEnv(home, { RELAY_ADMIN_TOKEN: token }), args: ["--host", "0.0.0.0"] });
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect((await fetch(`${server.url}/control/status`)).status).toBe(401);
      expect((await fetch(`${server.url}/control/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // The token is a secret: it must not appear in the start-up log.
      expect(server.stdout()).not.toContain(token);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe("relay service install --print", () => {
  const execStart = (unit: string) => /^ExecStart=(.*)$/m.exec(unit)?.[1];

  test("prints a hardened unit that runs this very program", async () => {
    const r = await relay("service", "install", "--print");
    expect(r.code).toBe(0);
    // From source the "binary" is bun running src/server.ts.
    expect(execStart(r.stdout)).toBe(`${realpathSync(BUN)} ${SERVER} start`);
    expect(r.stdout).toContain("ProtectSystem=strict");
    expect(r.stdout).toContain("DynamicUser=yes");
    expect(r.stdout).toContain("NoNewPrivileges=yes");
    expect(r.stdout).toMatch(/^\[Install\]$/m);
  });

  test("--user swaps DynamicUser for a fixed user", async () => {
    const r = await relay("service", "install", "--print", "--user", "relay");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^User=relay$/m);
    expect(r.stdout).toMatch(/^Group=relay$/m);
    expect(r.stdout).not.toContain("DynamicUser=yes");
    expect(r.stdout).toContain("ProtectSystem=strict");
  });

  test("rejects an invalid user name and a missing --print", async () => {
    expectUsageError(await relay("service", "install", "--print", "--user", "bad name;rm"), "--user");
    expectUsageError(await relay("service", "install"), "--print");
  });
});

describe("a started server", () => {
  let server: RunningRelay;
  beforeAll(async () => {
    server = await startRelayProcess(FROM_SOURCE, { env: childEnv(home) });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("logs where it listens, then one JSON access-log line per request with the request id", async () => {
    const listening = await server.waitForLog((r) => r.msg === "relay listening");
    expect(listening.url).toBe(server.url);
    expect(listening.version).toBe(VERSION);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", version: VERSION, store: "sqlite" });

    const missing = await fetch(`${server.url}/no/such/route`);
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: { message: string } };
    expect(body.error.message).toBe(NOT_FOUND_MESSAGE);
    for (const endpoint of ["POST /v1/messages", "POST /v1/chat/completions", "GET /v1/models"]) expect(body.error.message).toContain(endpoint);

    const models = await fetch(`${server.url}/v1/models`);
    expect(models.status).toBe(200);
    await models.arrayBuffer();

    const ids = [health, missing, models].map((r) => r.headers.get("x-svc-request-id"));
    for (const id of ids) expect(id).toMatch(/^req_\w+$/);
    expect(new Set(ids).size).toBe(3);

    // Every stdout line is one JSON object; each request above has exactly one access line.
    for (const id of ids) await server.waitForLog((r) => r.msg === "request" && r.requestId === id);
    const access = server.logs().filter((r) => r.msg === "request" && ids.includes(r.requestId));
    expect(access.map((r) => [r.requestId, r.path, r.status])).toEqual([
      [ids[0], "/health", 200],
      [ids[1], "/no/such/route", 404],
      [ids[2], "/v1/models", 200],
    ]);
  });

  test("SIGTERM stops it with exit code 0", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.logs().some((r) => r.msg === "stopped")).toBe(true);
  });
});
