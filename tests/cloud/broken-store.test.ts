// The hosted API's 500 path, shown by breaking the store under a running `relay cloud` listener
// (real HTTP), not by a route that exists for tests. The store fails as it does in production:
//   - SQLite: the database's files (database, WAL and shared-memory index) are overwritten with
//     zeros in place, as a failed disk or a wiped volume leaves them. The server's open files now
//     read zeros, so every query fails ("file is not a database"); writing the saved bytes back is
//     the restore from a copy.
//   - Postgres: the database refuses connections (ALLOW_CONNECTIONS false) and its sessions are
//     terminated, as in an outage or maintenance; allowing connections again is the restore.
// In both, a guarded route answers 500 in the hosted error shape with its request id and nothing of
// the failure (no SQL, no path, no driver message, no stack), the process keeps serving (the
// readiness check says degraded), and a register sent during the outage left nothing behind: after
// the restore it is not there, and its Idempotency-Key runs the request afresh.
// Last, a Postgres whose network dies (tests/cloud/tcp-forwarder.ts swallowing every byte): the store
// has no query timeout, so a guarded request waits until the connection drops, then answers 500.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { PG_ADMIN_URL, postgresDatabase } from "./pg-database.ts";
import { tcpForwarder } from "./tcp-forwarder.ts";

const KEY = { ANTHROPIC_API_KEY: "sk-ant-broken-store" };
const AGENT = { name: "Outage", capability: "search", description: "registered while the store was down", endpoint: "https://agents.example/outage", protocol: "http" };

/** Breaks the store for real and puts it back. */
interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

/** The SQLite files overwritten with zeros in place (same inode: the server's open descriptors see it), then their saved bytes written back. */
function wipedSqlite(r: TestRelay): Outage {
  const files = ["", "-wal", "-shm"].map((suffix) => join(r.home, "data", `relay.db${suffix}`));
  let saved: Buffer[] = [];
  const overwrite = (path: string, bytes: Buffer) => {
    const fd = openSync(path, "r+");
    try {
      writeSync(fd, bytes, 0, bytes.length, 0);
    } finally {
      closeSync(fd);
    }
  };
  return {
    async begin() {
      saved = files.map((f) => readFileSync(f));
      for (const f of files) overwrite(f, Buffer.alloc(statSync(f).size));
    },
    async end() {
      files.forEach((f, i) => overwrite(f, saved[i]!));
    },
  };
}

/** The Postgres database refusing connections, with the server's sessions to it terminated. */
function refusingPostgres(url: string): Outage {
  const name = new URL(url).pathname.slice(1);
  const admin = new SQL(PG_ADMIN_URL, { max: 1 });
  return {
    async begin() {
      await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
    },
    async end() {
      await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.close();
    },
  };
}

/** A 500 in the hosted shape whose body says nothing of the failure; the request id is in the header too. */
async function expectInternalError(res: Response): Promise<string> {
  const text = await res.text();
  expect(res.status).toBe(500);
  const body = JSON.parse(text);
  expect(body).toEqual({ error: { code: "internal_error", message: "Internal server error" }, request_id: expect.stringMatching(/^req_\w+$/) });
  expect(res.headers.get("x-svc-request-id")).toBe(body.request_id);
  expect(res.headers.get("content-type")).toContain("application/json");
  return body.request_id;
}

describe.each(["sqlite", "postgres"] as const)("the store failing under a running relay cloud on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  let cloud: Listener;
  let outage: Outage | undefined;
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${cloud.url}${path}`, { ...init, headers: { "x-api-key": key, ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...(init.headers as Record<string, string>) } });
  const register = (key: string) => api("/api/register", key, { method: "POST", body: JSON.stringify(AGENT), headers: { "idempotency-key": "outage-1" } });

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_broken");
    r = await startRelay({ env: KEY, config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
  });
  afterEach(async () => {
    await outage?.end();
    outage = undefined;
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  test("guarded routes answer 500 in the hosted shape, the server keeps serving, and the outage leaves nothing half-written", async () => {
    const { secret } = await createTeam(r.relay.store, "Outage", "pro");
    expect((await api("/api/keys", secret)).status).toBe(200);
    expect((await fetch(`${cloud.url}/api/health`)).status).toBe(200);

    outage = driver === "sqlite" ? wipedSqlite(r) : refusingPostgres(db!.url);
    await outage.begin();
    const ids = [await expectInternalError(await api("/api/keys", secret)), await expectInternalError(await register(secret))];
    // The driver's error went to the log under each request's id; the answers above carry none of it.
    for (const id of ids) {
      const line = r.logs.find((l) => l.includes(id) && l.includes('"unhandled error"'));
      expect(line).toContain(driver === "sqlite" ? "SQLiteError" : "PostgresError");
    }

    // Still serving: readiness is degraded (503) with the database unreachable; liveness and routes that need no store answer.
    const health = await fetch(`${cloud.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "degraded", services: { database: "unreachable", cache: "healthy", ai_providers: "healthy" } });
    expect((await fetch(`${cloud.url}/health`)).status).toBe(200);
    expect((await fetch(`${cloud.url}/openapi.json`)).status).toBe(200);

    await outage.end();
    outage = undefined;
    expect((await fetch(`${cloud.url}/api/health`)).status).toBe(200);
    const keys = await api("/api/keys", secret);
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    // The register sent during the outage is not there, and its Idempotency-Key was not left claimed: the same request runs now.
    const before = (await (await api("/api/discover", secret)).json()) as { total: number };
    expect(before.total).toBe(0);
    const retried = await register(secret);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const after = (await (await api("/api/discover", secret)).json()) as { agents: Array<{ name: string }>; total: number };
    expect(after.agents.map((a) => a.name)).toEqual([AGENT.name]);
  });
});

describe("a guarded request on a Postgres that stops answering", () => {
  test("waits while readiness answers 503 within its bound, answers 500 in the hosted shape when the connection drops, and the next request succeeds", async () => {
    const db = await postgresDatabase("relay_broken");
    const pg = new URL(db.url);
    const forwarder = tcpForwarder(Number(pg.port || 5432));
    pg.port = String(forwarder.port);
    const r = await startRelay({ env: KEY, config: { store: { driver: "postgres", postgresUrl: pg.toString() } } });
    const cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 60 });
    try {
      const { secret } = await createTeam(r.relay.store, "Blackholed", "pro");
      const keys = () => fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": secret } });
      forwarder.blackhole();
      const held = keys();
      // Health bounds its probe (CHECK_TIMEOUT_MS), so it answers while the request above waits on the
      // store: no query timeout bounds a store call (see the header), so the request is still held.
      expect((await fetch(`${cloud.url}/api/health`)).status).toBe(503);
      expect(cloud.inFlight()).toBe(1);
      // The network's connections drop (as a dead peer's finally do): the held request fails, in the hosted shape.
      forwarder.reset();
      await expectInternalError(await held);
      expect(r.logs.some((l) => l.includes('"unhandled error"') && l.includes("PostgresError"))).toBe(true);
      expect((await keys()).status).toBe(200);
    } finally {
      forwarder.reset();
      await cloud.stop(100);
      await r.stop();
      forwarder.close();
      await db.drop();
    }
  }, 20_000);
});
