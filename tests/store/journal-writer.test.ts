// The writer thread's commit scheduling (src/store/journal-writer.ts), run in
// this thread on a clock the test moves, so a schedule that depends on how
// fast batches arrive is tested at an exact pace instead of whatever pace the
// machine gives. The database and the journal are real files.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JournalWriter, type WriterTimers } from "../../src/store/journal-writer.ts";
import { pendingMigrations } from "../../src/store/migrations.ts";
import { runRowTuple } from "../../src/store/row.ts";
import { sampleRun } from "../helpers/run-record.ts";

/**
 * Timers that fire only when the test moves the clock. A timer of 0 ms fires 1 ms later, as in Bun
 * (measured there: a 0 ms timer runs after about a millisecond).
 */
class SteppedTimers implements WriterTimers {
  private t = 0;
  private next = 0;
  private readonly armed = new Map<number, { due: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): number {
    this.armed.set(++this.next, { due: this.t + Math.max(ms, 1), fn });
    return this.next;
  }

  clearTimeout(timer: unknown): void {
    this.armed.delete(timer as number);
  }

  now(): number {
    return this.t;
  }

  /** Moves the clock on by `ms`, running each timer that falls due on the way, earliest first. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let first: [number, { due: number; fn: () => void }] | undefined;
      for (const entry of this.armed) if (entry[1].due <= end && (!first || entry[1].due < first[1].due)) first = entry;
      if (!first) break;
      this.armed.delete(first[0]);
      this.t = Math.max(this.t, first[1].due);
      first[1].fn();
    }
    this.t = end;
  }
}

let root: string;
let dbPath: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "relay-journal-writer-"));
  dbPath = path.join(root, "relay.db");
  const db = new Database(dbPath, { create: true });
  db.run("PRAGMA journal_mode = WAL");
  for (const m of pendingMigrations([], "sqlite")) for (const statement of m.statements) db.run(statement);
  db.close();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function committedRows(): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM runs").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const batch = (from: number, size: number): string => JSON.stringify(Array.from({ length: size }, (_, i) => runRowTuple(sampleRun({ id: `req_${from + i}` }))));

test("batches arriving every half millisecond are committed as they come: the armed slice is not put off by each batch", () => {
  const timers = new SteppedTimers();
  const writer = new JournalWriter(timers);
  writer.handle({ op: "open", path: dbPath, journal: path.join(root, "relay.db-runs-test.jsonl") });
  let seq = 0;
  const total = 60_000;
  // Past COMMIT_ROWS pending rows, each batch used to re-arm the 0 ms slice timer: at this pace it
  // never fired, and the 50,000th pending row was refused ("run log commits are behind").
  for (let i = 0; i < total; i += 40) {
    expect(writer.handle({ op: "insert", seq: ++seq, json: batch(i, 40) })).toEqual({ seq });
    timers.advance(0.5);
  }
  // Committed while the batches kept coming: what is left is at most a few slices' worth.
  expect(committedRows()).toBeGreaterThan(total - 2_000);
  writer.handle({ op: "close", seq: ++seq });
  expect(committedRows()).toBe(total);
});

test("below COMMIT_ROWS rows, a batch waits for the 100 ms interval, and a sync commits it at once", () => {
  const timers = new SteppedTimers();
  const writer = new JournalWriter(timers);
  writer.handle({ op: "open", path: dbPath, journal: path.join(root, "relay.db-runs-test.jsonl") });
  writer.handle({ op: "insert", seq: 1, json: batch(0, 10) });
  timers.advance(99);
  expect(committedRows()).toBe(0);
  timers.advance(1);
  expect(committedRows()).toBe(10);
  writer.handle({ op: "insert", seq: 2, json: batch(10, 10) });
  writer.handle({ op: "sync", seq: 3 });
  expect(committedRows()).toBe(20);
  writer.handle({ op: "close", seq: 4 });
});

test("the writer's commits leave the WAL's checkpoints to the checkpointer thread: past SQLite's 1,000 pages the file is untouched", () => {
  const timers = new SteppedTimers();
  const writer = new JournalWriter(timers);
  writer.handle({ op: "open", path: dbPath, journal: path.join(root, "relay.db-runs-test.jsonl") });
  const fileBefore = statSync(dbPath).size;
  let seq = 0;
  const total = 20_000;
  for (let i = 0; i < total; i += 500) writer.handle({ op: "insert", seq: ++seq, json: batch(i, 500) });
  writer.handle({ op: "sync", seq: ++seq });
  // A checkpoint here would be the writer's, in a commit: with SQLite's default it ran at 1,000 pages.
  const reader = new Database(dbPath, { readonly: true });
  const pageSize = (reader.query("PRAGMA page_size").get() as { page_size: number }).page_size;
  reader.close();
  expect(statSync(`${dbPath}-wal`).size).toBeGreaterThan(1_000 * pageSize);
  expect(statSync(dbPath).size).toBe(fileBefore);
  expect(committedRows()).toBe(total);
  writer.handle({ op: "close", seq: ++seq });
});

test("a prune deletes 1,000 runs a task, and a batch arriving meanwhile is acknowledged before it ends", async () => {
  const timers = new SteppedTimers();
  const writer = new JournalWriter(timers);
  writer.handle({ op: "open", path: dbPath, journal: path.join(root, "relay.db-runs-test.jsonl") });
  const old = JSON.stringify(Array.from({ length: 2_500 }, (_, i) => runRowTuple(sampleRun({ id: `req_old_${i}`, ts: 1_000 + i }))));
  writer.handle({ op: "insert", seq: 1, json: old });
  writer.handle({ op: "insert", seq: 2, json: batch(0, 10) });
  let answer: unknown;
  const reply = writer.handle({ op: "prune", seq: 3, before: 10_000 }) as Promise<unknown>;
  void reply.then((r) => (answer = r));
  // The pending rows were committed first; the first chunk ran at once, and nothing after it yet.
  expect(committedRows()).toBe(2_510 - 1_000);
  expect(writer.handle({ op: "insert", seq: 4, json: batch(10, 10) })).toEqual({ seq: 4 });
  timers.advance(1);
  expect(committedRows()).toBe(2_510 - 2_000);
  timers.advance(1);
  await reply;
  expect(answer).toEqual({ seq: 3, value: 2_500 });
  writer.handle({ op: "close", seq: 5 });
  expect(committedRows()).toBe(20);
});
