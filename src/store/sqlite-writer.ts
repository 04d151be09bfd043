// Worker thread that owns the run log's writes for a file-backed SQLite store,
// so neither a journal append nor a commit runs on the thread that serves
// requests. It has its own connection to the same file: WAL lets the main
// thread's reads go on while this connection writes. Records arrive as one
// JSON text of row tuples per batch (far cheaper to post than structured
// objects, and half the text of the records: see runRowTuple).
//
// A batch is acknowledged once it is appended to the journal (sqlite-journal.ts):
// a caller that awaits the reply knows the batch survives a kill -9. The rows
// are committed to the table in large transactions: every COMMIT_INTERVAL_MS,
// at COMMIT_ROWS rows, and on "sync" (the store asks before it reads runs, so a
// read sees every acknowledged run). A commit runs after the reply that
// triggered it and in slices (COMMIT_SLICE rows or a quarter of the backlog), each its own task, so a
// batch that arrives meanwhile is acknowledged after at most one slice instead
// of waiting for the whole backlog (measured: p99 at 200 connections).
// Counter increments (budget spend, saved once a second) run here too, so the
// request thread never waits on the file's write lock while a commit holds it.
import { Database } from "bun:sqlite";
import { Journal, replayJournal } from "./sqlite-journal.ts";
import { runInserter } from "./sqlite-insert.ts";
import { assertInsertable, type RunRowTuple } from "./row.ts";
import { incrStatement } from "./sql-store.ts";

export type WriterRequest =
  | { op: "open"; path: string; journal: string }
  | { op: "insert"; seq: number; json: string }
  | { op: "sync"; seq: number }
  | { op: "incr"; seq: number; key: string; delta: number }
  | { op: "close"; seq: number };
/** `value`: an incr's new counter value. */
export type WriterReply = { seq: number; error?: string; value?: number };

/** Longest an acknowledged row waits for its commit (other processes and the integrity of reads do not depend on it). */
const COMMIT_INTERVAL_MS = 100;
/** Rows that start a commit without waiting for the interval. */
const COMMIT_ROWS = 500;
/**
 * Rows per transaction, at least (see commitInSlices): the write lock is held ~4-5 µs per row, and
 * both the main connection's rare writes and this thread's next acknowledgement wait for it.
 */
const COMMIT_SLICE = 100;
/** Longest the journal goes without being cleared while rows keep arriving. */
const JOURNAL_CLEAR_MS = 1_000;
/**
 * Rows journaled but not committed at most: while commits keep failing (the file locked by another
 * process, the disk full) new batches are refused with the commit's error instead of piling up here,
 * so the run writer reports the failure and its bounded queue takes over.
 */
const MAX_PENDING_ROWS = 50_000;

declare const self: Worker;

let db: Database | undefined;
let insertBatch: ((rows: RunRowTuple[]) => void) | undefined;
let journal: Journal | undefined;
let openError: string | undefined;
/** Journaled rows not yet committed. */
let pending: RunRowTuple[] = [];
let commitTimer: ReturnType<typeof setTimeout> | undefined;
/** The armed timer is the next slice's (due now), not the interval's. */
let sliceDue = false;
/** When the oldest row still in the journal was appended (the journal is cleared whenever nothing is pending). */
let journalSince = 0;
/** The last commit's failure, reported by the next sync or close; the rows stay journaled and pending. */
let commitError: string | undefined;

function open(path: string, journalPath: string): void {
  try {
    const conn = new Database(path, { strict: true });
    conn.run("PRAGMA busy_timeout = 5000");
    // Per connection: commits append to the WAL without fsync; a process kill loses nothing committed.
    conn.run("PRAGMA synchronous = NORMAL");
    insertBatch = runInserter(conn);
    // A previous worker of this store died with rows journaled but not committed.
    replayJournal(journalPath, insertBatch);
    journal = new Journal(journalPath);
    journal.clear();
    db = conn;
  } catch (e) {
    // Reported with every insert, which is what callers wait on.
    openError = `run log writer could not open ${path}: ${(e as Error)?.message ?? e}`;
  }
}

/** Why a request found no open store: the open's failure, or an open that never came. */
const notOpen = (): Error => new Error(openError ?? "run log writer used before it was opened");

/** Commits up to `max` of the pending rows; false when the commit failed (commitError says why). */
function commitRows(max: number): boolean {
  const rows = pending.length <= max ? pending : pending.slice(0, max);
  try {
    insertBatch!(rows);
  } catch (e) {
    commitError = `run log commit failed: ${(e as Error)?.message ?? e}`;
    return false;
  }
  commitError = undefined;
  pending = rows === pending ? [] : pending.slice(rows.length);
  // Committed rows stay in the journal until nothing is pending (replaying them is a no-op).
  if (pending.length === 0) journal!.clear();
  return true;
}

/**
 * The timer's commit: one slice per task, so the messages that arrive meanwhile are answered in
 * between. A slice takes at least a quarter of the backlog, so rows arriving faster than
 * COMMIT_SLICE a task (a burst) still cannot pile up toward MAX_PENDING_ROWS; and should rows keep
 * arriving as fast as slices commit them, the rest goes in one transaction once the journal has gone
 * uncleared for JOURNAL_CLEAR_MS, which bounds its size.
 */
function commitInSlices(): void {
  clearTimeout(commitTimer);
  commitTimer = undefined;
  sliceDue = false;
  if (pending.length === 0) return;
  const overdue = performance.now() - journalSince > JOURNAL_CLEAR_MS;
  const slice = overdue ? pending.length : Math.max(COMMIT_SLICE, Math.ceil(pending.length / 4));
  if (!commitRows(slice)) schedule();
  else if (pending.length > 0) sliceNext();
}

/**
 * Arms the next slice, unless it is armed already. Fix: each batch re-armed it, and a timer of 0 ms
 * fires after about 1 ms in Bun, so batches arriving less than 1 ms apart put the commit off until
 * the backlog was refused (tests/store/journal.test.ts, rows arriving faster than one slice a task).
 */
function sliceNext(): void {
  if (sliceDue) return;
  clearTimeout(commitTimer);
  sliceDue = true;
  commitTimer = setTimeout(commitInSlices, 0);
}

/** Commits every pending row now (a read or close waits on it); throws the commit's error. */
function commitAll(): void {
  clearTimeout(commitTimer);
  commitTimer = undefined;
  sliceDue = false;
  if (pending.length === 0 || commitRows(pending.length)) return;
  schedule();
  throw new Error(commitError);
}

function schedule(): void {
  commitTimer ??= setTimeout(commitInSlices, COMMIT_INTERVAL_MS);
}

function insert(json: string): void {
  if (!journal) throw notOpen();
  if (pending.length >= MAX_PENDING_ROWS) throw new Error(commitError ?? "run log commits are behind");
  const rows = JSON.parse(json) as RunRowTuple[];
  // All or nothing, before it is journaled: a row that can never be committed would hold up the rest.
  for (const row of rows) assertInsertable(row);
  journal.append(json);
  if (pending.length === 0) journalSince = performance.now();
  for (const row of rows) pending.push(row);
  if (pending.length < COMMIT_ROWS || commitError) return schedule();
  // After this batch's acknowledgement has been posted.
  sliceNext();
}

function handle(msg: WriterRequest): WriterReply | undefined {
  switch (msg.op) {
    case "open":
      open(msg.path, msg.journal);
      return undefined;
    case "insert":
      insert(msg.json);
      return { seq: msg.seq };
    case "sync":
      if (journal) commitAll();
      return { seq: msg.seq };
    case "incr": {
      if (!db) throw notOpen();
      const row = db.query(incrStatement("sqlite")).get(msg.key, String(msg.delta)) as { value: string | number };
      return { seq: msg.seq, value: Number(row.value) };
    }
    case "close":
      if (journal) commitAll();
      journal?.close();
      db?.close();
      journal = db = insertBatch = undefined;
      return { seq: msg.seq };
  }
}

self.onmessage = (event: MessageEvent<WriterRequest>) => {
  const msg = event.data;
  try {
    const reply = handle(msg);
    if (reply) self.postMessage(reply);
  } catch (e) {
    self.postMessage({ seq: msg.op === "open" ? 0 : msg.seq, error: (e as Error)?.message ?? String(e) } satisfies WriterReply);
  }
};
