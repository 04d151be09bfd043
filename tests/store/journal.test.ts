// The SQLite run log acknowledges a batch once it is appended to a journal and
// commits rows to the table later, in bulk (src/store/sqlite-journal.ts). What
// a client was told is stored must survive the process being killed, and a
// journal must be replayed only when no living writer owns it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openStore } from "../../src/store/open.ts";
import { runRowTuple } from "../../src/store/row.ts";
import { sampleRun } from "../helpers/run-record.ts";

let root: string;
let dbPath: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "relay-journal-"));
  dbPath = path.join(root, "relay.db");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const run = (id: string) => sampleRun({ id });

/** Ids in the table, read by a connection of its own (not through the store). */
function tableIds(): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.query("SELECT id FROM runs ORDER BY id").all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

const journals = () => readdirSync(root).filter((n) => n.endsWith(".jsonl"));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

describe("sqlite run-log journal", () => {
  test("runs acknowledged just before a kill -9 are in the table after the next open", async () => {
    // A child process stores 50 runs in 5 batches and kills itself the moment the last is acknowledged,
    // well inside the writer's commit interval.
    const script = `
      import { openStore } from ${JSON.stringify(path.resolve("src/store/open.ts"))};
      const store = await openStore({ driver: "sqlite", path: ${JSON.stringify(dbPath)} });
      const runs = ${JSON.stringify(Array.from({ length: 50 }, (_, i) => run(`req_${String(i).padStart(2, "0")}`)))};
      for (let b = 0; b < 5; b++) await store.runs.insertRuns(runs.slice(b * 10, b * 10 + 10));
      process.kill(process.pid, "SIGKILL");
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stderr: "pipe" });
    expect(await child.exited).not.toBe(0);
    expect(child.signalCode).toBe("SIGKILL");

    const store = await openStore({ driver: "sqlite", path: dbPath });
    try {
      expect((await store.runs.listRuns({ limit: 100, offset: 0 })).total).toBe(50);
      expect(journals()).toEqual([]); // replayed, then removed
    } finally {
      await store.close();
    }
    expect(tableIds()).toHaveLength(50);
  });

  test("a dead process's journal is replayed once; a torn last line is skipped", async () => {
    // The schema first, then a journal as a process that died mid-append would leave it.
    await (await openStore({ driver: "sqlite", path: dbPath })).close();
    const whole = JSON.stringify([runRowTuple(run("req_a")), runRowTuple(run("req_b"))]);
    const torn = JSON.stringify([runRowTuple(run("req_c"))]).slice(0, 40);
    writeFileSync(`${dbPath}-runs-${await deadPid()}-1.jsonl`, `${whole}\n${torn}`);

    const store = await openStore({ driver: "sqlite", path: dbPath });
    await store.close();
    expect(tableIds()).toEqual(["req_a", "req_b"]);
    expect(journals()).toEqual([]);
  });

  test("a journal whose process is alive is left alone", async () => {
    await (await openStore({ driver: "sqlite", path: dbPath })).close();
    const owner = Bun.spawn(["sleep", "30"]);
    try {
      const name = `relay.db-runs-${owner.pid}-1.jsonl`;
      writeFileSync(path.join(root, name), `${JSON.stringify([runRowTuple(run("req_live"))])}\n`);
      const store = await openStore({ driver: "sqlite", path: dbPath });
      await store.close();
      expect(tableIds()).toEqual([]);
      expect(journals()).toEqual([name]);
    } finally {
      owner.kill();
    }
  });

  test("reads see every acknowledged run; a clean close commits them and removes the journal", async () => {
    const store = await openStore({ driver: "sqlite", path: dbPath });
    await store.runs.insertRuns([run("req_1"), run("req_2")]);
    expect(journals()).toHaveLength(1);
    expect((await store.runs.listRuns({ limit: 10, offset: 0 })).runs.map((r) => r.id).sort()).toEqual(["req_1", "req_2"]);
    expect((await store.runs.totals(0)).requests).toBe(2);
    await store.close();
    expect(tableIds()).toEqual(["req_1", "req_2"]);
    expect(journals()).toEqual([]);
  });

  test("a backlog past the commit threshold is committed, in slices, without waiting for a read; then the journal is emptied", async () => {
    const store = await openStore({ driver: "sqlite", path: dbPath });
    try {
      const ids = Array.from({ length: 650 }, (_, i) => `req_${String(i).padStart(3, "0")}`);
      for (let b = 0; b < ids.length; b += 50) await store.runs.insertRuns(ids.slice(b, b + 50).map(run));
      // Read through a connection of the test's own: a read through the store would commit first.
      const deadline = Date.now() + 3_000;
      while (tableIds().length < ids.length && Date.now() < deadline) await Bun.sleep(10);
      expect(tableIds()).toEqual(ids);
      expect(statSync(path.join(root, journals()[0]!)).size).toBe(0);
    } finally {
      await store.close();
    }
  });

  test("rows arriving faster than one slice a task are still committed as they come, never refused", async () => {
    // One batch in flight at a time, as RunWriter sends them: the writer answers each in tens of
    // microseconds, so more than a slice of rows can arrive between two commit tasks.
    const store = await openStore({ driver: "sqlite", path: dbPath });
    try {
      const total = 80_000;
      for (let i = 0; i < total; i += 40) await store.runs.insertRuns(Array.from({ length: 40 }, (_, j) => run(`req_${i + j}`)));
      const counted = new Database(dbPath, { readonly: true });
      try {
        const deadline = Date.now() + 5_000;
        let rows = 0;
        while ((rows = (counted.query("SELECT count(*) AS n FROM runs").get() as { n: number }).n) < total && Date.now() < deadline) await Bun.sleep(10);
        expect(rows).toBe(total);
      } finally {
        counted.close();
      }
    } finally {
      await store.close();
    }
  }, 30_000);

  test("two stores of one process on the same file keep their own journals", async () => {
    const a = await openStore({ driver: "sqlite", path: dbPath });
    await a.runs.insertRuns([run("req_a")]);
    // Opening b runs recovery: a's journal belongs to a living writer of this process.
    const b = await openStore({ driver: "sqlite", path: dbPath });
    await b.runs.insertRuns([run("req_b")]);
    expect(journals()).toHaveLength(2);
    await a.close();
    await b.close();
    expect(tableIds()).toEqual(["req_a", "req_b"]);
  });

  test("a commit another process blocks fails the read with SQLite's reason; the retry stores the runs unchanged", async () => {
    const store = await openStore({ driver: "sqlite", path: dbPath });
    const other = new Database(dbPath);
    try {
      const original = run("req_blocked");
      await store.runs.insertRuns([original]); // journaled and acknowledged
      other.run("BEGIN IMMEDIATE"); // holds the write lock past the writer's 5 s busy timeout
      // Settled first, then checked: expect(...).rejects on this 5 s wait never returned under bun test 1.4.5.
      const refused = await store.runs.listRuns({ limit: 10, offset: 0 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(refused?.message).toMatch(/run log commit failed: database is locked/);
      other.run("ROLLBACK");
      const { runs } = await store.runs.listRuns({ limit: 10, offset: 0 });
      expect(runs).toEqual([original]);
    } finally {
      other.close();
      await store.close();
    }
  }, 20_000);

  test("while commits keep failing, the backlog stops at 50,000 rows with the commit's error; once they succeed, nothing was lost", async () => {
    const store = await openStore({ driver: "sqlite", path: dbPath });
    const other = new Database(dbPath);
    try {
      // A failing disk, immediately: every insert into runs aborts (the writer's connection sees the new schema).
      other.run("CREATE TRIGGER fail_commits BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END");
      const BATCH = 5_000;
      let accepted = 0;
      let refused: Error | undefined;
      while (!refused && accepted <= 60_000) {
        const batch = Array.from({ length: BATCH }, (_, j) => run(`req_${String(accepted + j).padStart(6, "0")}`));
        refused = await store.runs.insertRuns(batch).then(
          () => void (accepted += BATCH),
          (e: Error) => e,
        );
      }
      expect(accepted).toBe(50_000);
      expect(refused?.message).toMatch(/run log commit failed: disk I\/O error \(test\)/);
      expect(tableIds()).toHaveLength(0);

      // The disk recovers: the writer's own retry commits the backlog, with no read to force it.
      other.run("DROP TRIGGER fail_commits");
      const deadline = Date.now() + 10_000;
      while (tableIds().length < 50_000 && Date.now() < deadline) await Bun.sleep(50);
      const ids = tableIds();
      expect(ids).toHaveLength(50_000);
      expect([ids[0], ids.at(-1)]).toEqual(["req_000000", "req_049999"]);
      await store.runs.insertRuns([run("req_after")]);
    } finally {
      other.close();
      await store.close();
    }
  }, 30_000);
});
