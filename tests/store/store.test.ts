// One behavioural suite run against both drivers. Postgres is optional
// locally (skipped with a warning) but required when CI=true.

import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LATEST_VERSION, MIGRATIONS } from "../../src/store/migrations.ts";
import { openStore } from "../../src/store/open.ts";
import type { RunRecord } from "../../src/core/run-record.ts";
import type { Agent, StoredAgent } from "../../src/store/agents/types.ts";
import type { Store } from "../../src/store/types.ts";

const PG_URLS = process.env.RELAY_TEST_PG_URL
  ? [process.env.RELAY_TEST_PG_URL]
  : ["postgres://postgres@127.0.0.1:5432/test", "postgres://root@127.0.0.1:5432/test"];

async function findPostgres(): Promise<string | undefined> {
  for (const url of PG_URLS) {
    const sql = new SQL(url, { max: 1, connectionTimeout: 3 });
    try {
      await sql`SELECT 1`;
      return url;
    } catch {
      // try the next candidate
    } finally {
      await sql.close();
    }
  }
  return undefined;
}

const pgUrl = await findPostgres();
if (!pgUrl) {
  const reason = `postgres unreachable at ${PG_URLS.join(" / ")}`;
  if (process.env.CI === "true") throw new Error(`${reason}: CI requires it`);
  console.warn(`${reason}: skipping`);
}

interface Driver {
  name: "sqlite" | "postgres";
  available: boolean;
  /** Opens a store on this test's database (same database until reset). */
  open(): Promise<Store>;
  /** Gives the next test an empty database. */
  reset(): Promise<void>;
  appliedVersions(): Promise<number[]>;
  cleanup(): Promise<void>;
}

function sqliteDriver(): Driver {
  const root = mkdtempSync(path.join(tmpdir(), "relay-store-"));
  let n = 0;
  // Nested, not-yet-existing directory: openStore must create it.
  const dbPath = () => path.join(root, `t${n}`, "nested", "relay.db");
  return {
    name: "sqlite",
    available: true,
    open: () => openStore({ driver: "sqlite", path: dbPath() }),
    reset: async () => {
      n++;
    },
    appliedVersions: async () => {
      const db = new Database(dbPath(), { readonly: true });
      try {
        return (db.query("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map(
          (r) => r.version,
        );
      } finally {
        db.close();
      }
    },
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
}

function postgresDriver(url: string | undefined): Driver {
  const schema = `relay_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = url ? new SQL(url, { max: 1 }) : undefined;
  return {
    name: "postgres",
    available: url !== undefined,
    open: () => openStore({ driver: "postgres", url: url!, schema }),
    reset: async () => {
      await admin!.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
    appliedVersions: async () =>
      ((await admin!.unsafe(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)) as { version: number }[]).map(
        (r) => r.version,
      ),
    cleanup: async () => {
      if (!admin) return;
      await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    },
  };
}

const drivers = [sqliteDriver(), postgresDriver(pgUrl)];

const T0 = 1_700_000_000_000;
let seq = 0;

function run(over: Partial<RunRecord> = {}): RunRecord {
  seq++;
  return {
    id: `run_${seq}`,
    ts: T0 + seq,
    latencyMs: 100 + seq,
    requestedModel: "auto",
    routedModel: "gpt-4o-mini",
    provider: "openai",
    strategy: "cascade",
    status: 200,
    outcome: "ok",
    stream: false,
    clientFormat: "openai",
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 2,
    cacheWriteTokens: 1,
    costUsd: 0.25,
    fallbackUsed: false,
    attempts: 1,
    events: [{ type: "attempt", model: "gpt-4o-mini", provider: "openai", status: 200, latencyMs: 90 }],
    reasons: ["simple prompt"],
    metadata: { team: "core", nested: { n: 1 } },
    overheadMs: 1.5,
    ...over,
  };
}

function agent(id: string, capability: string, createdAt: string, over: Partial<StoredAgent> = {}): StoredAgent {
  return {
    id,
    name: `Agent ${id}`,
    capability,
    description: "does things",
    endpoint: `https://agents.example/${id}`,
    protocol: "http",
    created_at: createdAt,
    public: false,
    team_id: "team_a",
    card: null,
    labels: [],
    ...over,
  };
}

/** What a listing answers of a stored agent. */
const listed = ({ team_id, card, labels, ...a }: StoredAgent): Agent => a;

for (const driver of drivers) {
  describe.skipIf(!driver.available)(driver.name, () => {
    const opened: Store[] = [];
    let store: Store;
    const open = async () => {
      const s = await driver.open();
      opened.push(s);
      return s;
    };

    beforeEach(async () => {
      await driver.reset();
      store = await open();
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });
    afterAll(() => driver.cleanup());

    test("migrations are versioned and idempotent", async () => {
      await store.migrate();
      const again = await open(); // a second open migrates again
      await again.migrate();
      expect(await driver.appliedVersions()).toEqual(MIGRATIONS.map((m) => m.version));
      expect(Math.max(...(await driver.appliedVersions()))).toBe(LATEST_VERSION);
      expect(await store.integrityCheck()).toBe(true);
    });

    test("round-trips a record, including optional fields", async () => {
      const plain = run();
      const full = run({
        tier: "premium",
        sessionKey: "sess-1",
        error: "upstream 529",
        outcome: "error",
        status: 529,
        stream: true,
        fallbackUsed: true,
        events: [
          { type: "attempt", model: "a", provider: "p", status: 529, reason: "overloaded", latencyMs: 3 },
          { type: "fallback", model: "b", provider: "q" },
        ],
      });
      await store.runs.insertRuns([plain, full]);
      expect(await store.runs.getRun(plain.id)).toEqual(plain);
      expect(await store.runs.getRun(full.id)).toEqual(full);
      expect(await store.runs.getRun("missing")).toBeUndefined();
    });

    test("lists newest first with filters, pagination and total", async () => {
      const runs = [
        run({ routedModel: "m1", provider: "p1", sessionKey: "s1" }),
        run({ routedModel: "m2", provider: "p1", status: 500, outcome: "error" }),
        run({ routedModel: "m1", provider: "p2", sessionKey: "s1" }),
        run({ routedModel: "m1", provider: "p1" }),
        run({ routedModel: "m2", provider: "p2" }),
      ];
      await store.runs.insertRuns(runs);
      const ids = (rs: RunRecord[]) => rs.map((r) => r.id);

      const all = await store.runs.listRuns({ limit: 10, offset: 0 });
      expect(all.total).toBe(5);
      expect(ids(all.runs)).toEqual(ids([...runs].reverse()));

      const page = await store.runs.listRuns({ limit: 2, offset: 2 });
      expect(page.total).toBe(5);
      expect(ids(page.runs)).toEqual([runs[2].id, runs[1].id]);

      const m1 = await store.runs.listRuns({ limit: 10, offset: 0, model: "m1" });
      expect(m1.total).toBe(3);
      expect(ids(m1.runs)).toEqual([runs[3].id, runs[2].id, runs[0].id]);

      const m1p1 = await store.runs.listRuns({ limit: 1, offset: 0, model: "m1", provider: "p1" });
      expect(m1p1.total).toBe(2);
      expect(ids(m1p1.runs)).toEqual([runs[3].id]);

      expect(ids((await store.runs.listRuns({ limit: 10, offset: 0, status: 500 })).runs)).toEqual([runs[1].id]);
      expect((await store.runs.listRuns({ limit: 10, offset: 0, sessionKey: "s1" })).total).toBe(2);
      const recent = await store.runs.listRuns({ limit: 10, offset: 0, since: runs[3].ts });
      expect(ids(recent.runs)).toEqual([runs[4].id, runs[3].id]);
      expect(await store.runs.listRuns({ limit: 10, offset: 50 })).toEqual({ runs: [], total: 5 });
    });

    test("ignores records whose id already exists", async () => {
      const first = run({ costUsd: 1 });
      await store.runs.insertRuns([first]);
      const second = run();
      await store.runs.insertRuns([{ ...first, costUsd: 99 }, second, { ...second, costUsd: 42 }]);
      expect((await store.runs.getRun(first.id))?.costUsd).toBe(1);
      expect((await store.runs.getRun(second.id))?.costUsd).toBe(second.costUsd);
      expect((await store.runs.listRuns({ limit: 10, offset: 0 })).total).toBe(2);
    });

    test("a batch with one bad record writes nothing", async () => {
      const bad = { ...run(), requestedModel: null } as unknown as RunRecord;
      await expect(store.runs.insertRuns([run(), run(), bad, run()])).rejects.toThrow();
      expect((await store.runs.listRuns({ limit: 10, offset: 0 })).total).toBe(0);
      await store.runs.insertRuns([run()]); // the store stays usable
      expect((await store.runs.listRuns({ limit: 10, offset: 0 })).total).toBe(1);
    });

    test("totals and per-model totals since a time", async () => {
      const old = run({ routedModel: "m1", costUsd: 100 });
      const a = run({ routedModel: "m1", provider: "p1", inputTokens: 10, outputTokens: 1, costUsd: 0.5 });
      const b = run({ routedModel: "m1", provider: "p1", inputTokens: 20, outputTokens: 2, costUsd: 0.25, fallbackUsed: true });
      const c = run({ routedModel: "m2", provider: "p2", inputTokens: 5, outputTokens: 3, costUsd: 1, outcome: "error", status: 502 });
      await store.runs.insertRuns([old, a, b, c]);

      const totals = await store.runs.totals(a.ts);
      expect(totals).toEqual({
        requests: 3,
        errors: 1,
        inputTokens: 35,
        outputTokens: 6,
        cacheReadTokens: 6,
        cacheWriteTokens: 3,
        costUsd: 1.75,
        fallbacks: 1,
      });
      expect(await store.runs.totals(c.ts + 1)).toEqual({
        requests: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        fallbacks: 0,
      });

      const byModel = await store.runs.totalsByModel(a.ts);
      expect(byModel).toEqual([
        {
          model: "m1",
          provider: "p1",
          requests: 2,
          errors: 0,
          inputTokens: 30,
          outputTokens: 3,
          cacheReadTokens: 4,
          cacheWriteTokens: 2,
          costUsd: 0.75,
          fallbacks: 1,
        },
        {
          model: "m2",
          provider: "p2",
          requests: 1,
          errors: 1,
          inputTokens: 5,
          outputTokens: 3,
          cacheReadTokens: 2,
          cacheWriteTokens: 1,
          costUsd: 1,
          fallbacks: 0,
        },
      ]);
    });

    test("latencies are newest first, bounded and since a time", async () => {
      const runs = [run({ latencyMs: 10 }), run({ latencyMs: 20.5 }), run({ latencyMs: 30 }), run({ latencyMs: 40 })];
      await store.runs.insertRuns(runs);
      expect(await store.runs.latencies(0, 10)).toEqual([40, 30, 20.5, 10]);
      expect(await store.runs.latencies(0, 2)).toEqual([40, 30]);
      expect(await store.runs.latencies(runs[1].ts, 10)).toEqual([40, 30, 20.5]);
    });

    test("prune deletes only older runs and counts them", async () => {
      const runs = [run(), run(), run(), run()];
      await store.runs.insertRuns(runs);
      expect(await store.runs.prune(runs[2].ts)).toBe(2);
      expect((await store.runs.listRuns({ limit: 10, offset: 0 })).runs.map((r) => r.id)).toEqual([runs[3].id, runs[2].id]);
      expect(await store.runs.prune(runs[2].ts)).toBe(0);
    });

    test("kv get, set, overwrite", async () => {
      expect(await store.kv.get("mode")).toBeUndefined();
      await store.kv.set("mode", "on");
      await store.kv.set("mode", "off");
      expect(await store.kv.get("mode")).toBe("off");
    });

    test("a budget window's spend starts at 0, and adding to it is atomic under concurrency", async () => {
      expect(await store.budgets.spent("hits")).toBe(0);
      const results = await Promise.all(Array.from({ length: 100 }, () => store.budgets.add("hits", 1)));
      expect(await store.budgets.spent("hits")).toBe(100);
      // Every increment saw a distinct value: none was lost or doubled.
      expect(new Set(results).size).toBe(100);
      expect(Math.max(...results)).toBe(100);
      expect(await store.budgets.add("spend", 0.5)).toBe(0.5);
      expect(await store.budgets.add("spend", 1.25)).toBe(1.75);
      expect(await store.budgets.add("spend", -0.75)).toBe(1);
    });

    test("agents list by created_at then id, filtered and paginated", async () => {
      await store.agents.insertAgent(agent("agent_c", "search", "2024-01-02T00:00:00.000Z"));
      await store.agents.insertAgent(agent("agent_b", "search", "2024-01-01T00:00:00.000Z"));
      await store.agents.insertAgent(agent("agent_a", "search", "2024-01-02T00:00:00.000Z"));
      await store.agents.insertAgent(agent("agent_x", "code", "2023-12-31T00:00:00.000Z"));

      const all = await store.agents.listAgents({ limit: 10, offset: 0 });
      expect(all.total).toBe(4);
      expect(all.agents.map((a) => a.id)).toEqual(["agent_x", "agent_b", "agent_a", "agent_c"]);
      expect(all.agents[0]).toEqual(listed(agent("agent_x", "code", "2023-12-31T00:00:00.000Z")));

      const search = await store.agents.listAgents({ capability: "search", limit: 2, offset: 1 });
      expect(search.total).toBe(3);
      expect(search.agents.map((a) => a.id)).toEqual(["agent_a", "agent_c"]);
      expect(await store.agents.listAgents({ capability: "none", limit: 10, offset: 0 })).toEqual({ agents: [], total: 0 });
    });

    test("agents are scoped to their team and public ones; labels match skill ids and tags", async () => {
      await store.agents.insertAgent(agent("agent_own", "search", "2024-01-01T00:00:00.000Z", { labels: ["web", "search"] }));
      await store.agents.insertAgent(agent("agent_other", "search", "2024-01-02T00:00:00.000Z", { team_id: "team_b" }));
      await store.agents.insertAgent(agent("agent_pub", "translate", "2024-01-03T00:00:00.000Z", { team_id: "team_b", public: true, labels: ["web"] }));

      const seen = await store.agents.listAgents({ team: "team_a", limit: 10, offset: 0 });
      expect(seen.agents.map((a) => a.id)).toEqual(["agent_own", "agent_pub"]);
      expect(seen.agents[1]!.public).toBe(true);
      const web = await store.agents.listAgents({ team: "team_a", capability: "web", limit: 10, offset: 0 });
      expect(web).toEqual({ agents: [listed(agent("agent_own", "search", "2024-01-01T00:00:00.000Z")), listed(agent("agent_pub", "translate", "2024-01-03T00:00:00.000Z", { team_id: "team_b", public: true }))], total: 2 });
      expect((await store.agents.listAgents({ team: "team_b", capability: "search", limit: 10, offset: 0 })).agents.map((a) => a.id)).toEqual(["agent_other"]);
    });

    test("integrity check passes and data survives close and reopen", async () => {
      expect(await store.integrityCheck()).toBe(true);
      const r = run();
      await store.runs.insertRuns([r]);
      await store.kv.set("k", "v");
      await store.budgets.add("spend:day:2026-11-22", 250_000_000);
      await store.close();
      const reopened = await open();
      expect(await reopened.runs.getRun(r.id)).toEqual(r);
      expect(await reopened.kv.get("k")).toBe("v");
      expect(await reopened.budgets.spent("spend:day:2026-11-22")).toBe(250_000_000);
      expect(await reopened.integrityCheck()).toBe(true);
    });
  });
}

describe("sqlite specifics", () => {
  test("uses WAL journaling on the file it creates", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "relay-wal-"));
    try {
      const file = path.join(root, "a", "b", "relay.db");
      const store = await openStore({ driver: "sqlite", path: file });
      await store.close();
      const db = new Database(file);
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("sqlite run-log writer thread", () => {
  let root: string;
  let store: Store;
  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), "relay-writer-"));
    store = await openStore({ driver: "sqlite", path: path.join(root, "relay.db") });
  });
  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  const ids = async () => (await store.runs.listRuns({ limit: 100, offset: 0 })).runs.map((r) => r.id).sort();

  /** The worker behind one of the store's threads ("thread": the writer; "reader"), if it runs. */
  const workerOf = (s: Store, which: "thread" | "reader"): Worker | undefined =>
    (s as unknown as Record<string, { requests?: { worker: Worker } }>)[which].requests?.worker;

  test("a thread that died is replaced on the next batch; nothing committed before is lost", async () => {
    await store.runs.insertRuns([run({ id: "req_before" })]);
    const first = workerOf(store, "thread");
    expect(first).toBeDefined();
    first!.terminate();
    // The thread's end is noticed asynchronously; until then a batch may be sent to it and fail.
    for (let i = 0; i < 200 && workerOf(store, "thread") === first; i++) await Bun.sleep(5);
    await store.runs.insertRuns([run({ id: "req_after" })]);
    expect(workerOf(store, "thread")).toBeDefined();
    expect(workerOf(store, "thread")).not.toBe(first);
    expect(await ids()).toEqual(["req_after", "req_before"]);
  });

  test("runs a dead thread had journaled are visible to the next read, with no batch after the death", async () => {
    await store.runs.insertRuns([run({ id: "req_journaled_1" }), run({ id: "req_journaled_2" })]);
    const first = workerOf(store, "thread")!;
    first.terminate(); // acknowledged (journaled), most likely not yet committed
    for (let i = 0; i < 200 && workerOf(store, "thread") === first; i++) await Bun.sleep(5);
    expect(workerOf(store, "thread")).toBeUndefined();
    expect(await ids()).toEqual(["req_journaled_1", "req_journaled_2"]);
  });

  test("the reader thread folds committed runs into the database file while the store stays open", async () => {
    const file = path.join(root, "relay.db");
    await store.runs.insertRuns(Array.from({ length: 300 }, (_, i) => run({ id: `req_ckpt_${i}` })));
    expect((await store.runs.listRuns({ limit: 1, offset: 0 })).total).toBe(300); // committed to the WAL
    const before = statSync(file).size;
    // Nothing else checkpoints this: 300 runs are far below any connection's automatic checkpoint.
    for (let i = 0; i < 60 && statSync(file).size === before; i++) await Bun.sleep(50);
    expect(statSync(file).size).toBeGreaterThan(before);
    // Closing stops the reader first, so the final checkpoint is not refused as busy.
    await store.runs.insertRuns([run({ id: "req_ckpt_last" })]);
    await store.close();
    expect(!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0).toBe(true);
  });

  test("prepareWrites starts the writer thread, and with it the reader, before any batch; again it does nothing", async () => {
    expect(workerOf(store, "thread")).toBeUndefined();
    expect(workerOf(store, "reader")).toBeUndefined();
    store.runs.prepareWrites!();
    const writer = workerOf(store, "thread");
    expect(writer).toBeDefined();
    expect(workerOf(store, "reader")).toBeDefined();
    store.runs.prepareWrites!();
    await store.runs.insertRuns([run({ id: "req_prepared" })]);
    expect(workerOf(store, "thread")).toBe(writer);
    expect(await ids()).toEqual(["req_prepared"]);
  });

  test("a key's value and a window's spend are read on this connection, without starting the reader thread, and see the writer thread's counter", async () => {
    await store.kv.set("mode", "on");
    expect(await store.kv.get("mode")).toBe("on");
    expect(await store.kv.get("absent")).toBeUndefined();
    expect(await store.budgets.spent("spend")).toBe(0);
    expect(workerOf(store, "reader")).toBeUndefined();
    await store.budgets.add("spend", 5);
    expect(workerOf(store, "thread")).toBeDefined();
    expect(await store.budgets.spent("spend")).toBe(5);
    expect(await store.budgets.add("spend", 2)).toBe(7);
    expect(await store.budgets.spent("spend")).toBe(7);
  });

  test("a prune with nothing old enough is answered here, without starting the writer thread", async () => {
    expect(await store.runs.prune(Date.now())).toBe(0);
    expect(workerOf(store, "thread")).toBeUndefined();
    await store.runs.insertRuns([run({ id: "req_old", ts: 1_000 }), run({ id: "req_new" })]);
    expect(await store.runs.prune(2_000)).toBe(1);
    expect(await ids()).toEqual(["req_new"]);
  });

  test("a reader thread that dies is reported and replaced on the next read; runs still go in", async () => {
    const messages: string[] = [];
    const file = path.join(root, "reported.db");
    const reported = await openStore({ driver: "sqlite", path: file, onError: (m) => messages.push(m) });
    try {
      await reported.runs.insertRuns([run({ id: "req_first" })]);
      const first = workerOf(reported, "reader")!;
      first.terminate();
      for (let i = 0; i < 200 && messages.length === 0; i++) await Bun.sleep(5);
      expect(messages).toEqual([expect.stringContaining("SQLite reader thread exited")]);
      await reported.runs.insertRuns([run({ id: "req_second" })]);
      expect((await reported.runs.listRuns({ limit: 10, offset: 0 })).total).toBe(2);
      expect(workerOf(reported, "reader")).not.toBe(first);
    } finally {
      await reported.close();
    }
  });

  test("reads of a file store run on the reader thread, not on the request thread's connection", async () => {
    await store.runs.insertRuns([run({ id: "req_read" })]);
    const main = (store as unknown as { db: Database }).db;
    const onMain: string[] = [];
    const query = main.query.bind(main);
    main.query = ((text: string) => (onMain.push(text), query(text))) as typeof main.query;
    expect((await store.runs.totalsByModel(0))[0]?.requests).toBe(1);
    expect((await store.runs.listRuns({ limit: 10, offset: 0, model: "gpt-4o-mini" })).total).toBe(1);
    expect(await store.integrityCheck()).toBe(true);
    expect(onMain).toEqual([]);
  });

  test("an integrity_check's verdict is shared by the callers that ask meanwhile and reused for ten minutes", async () => {
    const reader = (store as unknown as { reader: { all(text: string, params: unknown[]): Promise<unknown[]> } }).reader;
    const checks: string[] = [];
    const all = reader.all.bind(reader);
    reader.all = (text, params) => (text.includes("integrity_check") && checks.push(text), all(text, params));
    expect(await Promise.all([store.integrityCheck(), store.integrityCheck()])).toEqual([true, true]);
    expect(await store.integrityCheck()).toBe(true);
    expect(checks).toHaveLength(1);
    (store as unknown as { integrity: { at: number } }).integrity.at -= 10 * 60_000;
    expect(await store.integrityCheck()).toBe(true);
    expect(checks).toHaveLength(2);
  });

  test("a batch the database refuses rejects with SQLite's reason, and the thread goes on", async () => {
    const bad = { ...run({ id: "req_bad" }), outcome: undefined } as unknown as RunRecord; // NOT NULL column
    await expect(store.runs.insertRuns([run({ id: "req_ok_in_bad_batch" }), bad])).rejects.toThrow(/NOT NULL/);
    await store.runs.insertRuns([run({ id: "req_next" })]);
    expect(await ids()).toEqual(["req_next"]);
  });
});

describe("postgres specifics", () => {
  test("rejects a schema name that is not a plain identifier", async () => {
    await expect(openStore({ driver: "postgres", url: "postgres://127.0.0.1:1/x", schema: 'x"; drop' })).rejects.toThrow(
      /invalid Postgres schema name/,
    );
  });
});
