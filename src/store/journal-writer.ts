// What the run log's writer thread does with each message (sqlite-writer.ts is
// the thread itself): it owns the writes of a file-backed SQLite store, so
// neither a journal append nor a commit runs on the thread that serves
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
// So does pruning old runs, in chunks that are tasks of their own: as one
// DELETE on the main connection it stopped the request thread for ~2 µs a row
// (an hour of runs at 100 requests/s, 0.75 s, every hour).
//
// Timers come in through WriterTimers so a test can run the scheduling on a
// clock it moves itself (tests/store/journal-writer.test.ts).
import type { Database } from "bun:sqlite";
import { openConnection } from "./sqlite-connection.ts";
import { Journal, replayJournal } from "./sqlite-journal.ts";
import { runInserter } from "./sqlite-insert.ts";
import { assertInsertable, type RunRowTuple } from "./row.ts";
import { incrStatement } from "./budgets/sql.ts";

export type WriterRequest =
  | { op: "open"; path: string; journal: string }
  | { op: "insert"; seq: number; json: string }
  | { op: "sync"; seq: number }
  | { op: "incr"; seq: number; key: string; delta: number }
  | { op: "prune"; seq: number; before: number; team?: string }
  | { op: "close"; seq: number };
/** `value`: an incr's new counter value, a prune's count of runs deleted. */
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
/** Runs one prune task deletes (~2 ms): a batch arriving meanwhile waits at most that for its acknowledgement. */
const PRUNE_CHUNK = 1_000;

export interface WriterTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
  /** Milliseconds on a monotonic clock. */
  now(): number;
}

const realTimers: WriterTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  now: () => performance.now(),
};

export class JournalWriter {
  private db: Database | undefined;
  private insertBatch: ((rows: RunRowTuple[]) => void) | undefined;
  private journal: Journal | undefined;
  private openError: string | undefined;
  /** Journaled rows not yet committed. */
  private pending: RunRowTuple[] = [];
  private commitTimer: unknown;
  /** The armed timer is the next slice's (due now), not the interval's. */
  private sliceDue = false;
  /** When the oldest row still in the journal was appended (the journal is cleared whenever nothing is pending). */
  private journalSince = 0;
  /** The last commit's failure, reported by the next sync or close; the rows stay journaled and pending. */
  private commitError: string | undefined;

  constructor(private readonly timers: WriterTimers = realTimers) {}

  /**
   * Answers one message; throws what the caller must report as the message's error. A prune
   * answers once its last chunk is deleted (a rejection is its error).
   */
  handle(msg: WriterRequest): WriterReply | Promise<WriterReply> | undefined {
    switch (msg.op) {
      case "open":
        this.open(msg.path, msg.journal);
        return undefined;
      case "insert":
        this.insert(msg.json);
        return { seq: msg.seq };
      case "sync":
        if (this.journal) this.commitAll();
        return { seq: msg.seq };
      case "incr": {
        if (!this.db) throw this.notOpen();
        const row = this.db.query(incrStatement("sqlite")).get(msg.key, String(msg.delta)) as { value: string | number };
        return { seq: msg.seq, value: Number(row.value) };
      }
      case "prune":
        return this.prune(msg.before, msg.team).then((value) => ({ seq: msg.seq, value }));
      case "close":
        if (this.journal) this.commitAll();
        this.journal?.close();
        this.db?.close();
        this.journal = this.db = this.insertBatch = undefined;
        return { seq: msg.seq };
    }
  }

  private open(path: string, journalPath: string): void {
    try {
      const conn = openConnection(path);
      this.insertBatch = runInserter(conn);
      // A previous worker of this store died with rows journaled but not committed.
      replayJournal(journalPath, this.insertBatch);
      this.journal = new Journal(journalPath);
      this.journal.clear();
      this.db = conn;
    } catch (e) {
      // Reported with every insert, which is what callers wait on.
      this.openError = `run log writer could not open ${path}: ${(e as Error)?.message ?? e}`;
    }
  }

  /** Why a request found no open store: the open's failure, or an open that never came. */
  private notOpen(): Error {
    return new Error(this.openError ?? "run log writer used before it was opened");
  }

  /** Commits up to `max` of the pending rows; false when the commit failed (commitError says why). */
  private commitRows(max: number): boolean {
    const rows = this.pending.length <= max ? this.pending : this.pending.slice(0, max);
    try {
      this.insertBatch!(rows);
    } catch (e) {
      this.commitError = `run log commit failed: ${(e as Error)?.message ?? e}`;
      return false;
    }
    this.commitError = undefined;
    this.pending = rows === this.pending ? [] : this.pending.slice(rows.length);
    // Committed rows stay in the journal until nothing is pending (replaying them is a no-op).
    if (this.pending.length === 0) this.journal!.clear();
    return true;
  }

  /**
   * The timer's commit: one slice per task, so the messages that arrive meanwhile are answered in
   * between. A slice takes at least a quarter of the backlog, so rows arriving faster than
   * COMMIT_SLICE a task (a burst) still cannot pile up toward MAX_PENDING_ROWS; and should rows keep
   * arriving as fast as slices commit them, the rest goes in one transaction once the journal has gone
   * uncleared for JOURNAL_CLEAR_MS, which bounds its size.
   */
  private readonly commitInSlices = (): void => {
    this.timers.clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.sliceDue = false;
    if (this.pending.length === 0) return;
    const overdue = this.timers.now() - this.journalSince > JOURNAL_CLEAR_MS;
    const slice = overdue ? this.pending.length : Math.max(COMMIT_SLICE, Math.ceil(this.pending.length / 4));
    if (!this.commitRows(slice)) this.schedule();
    else if (this.pending.length > 0) this.sliceNext();
  };

  /**
   * Arms the next slice, unless it is armed already. Fix: each batch re-armed it, and a timer of 0 ms
   * fires after about 1 ms in Bun, so batches arriving less than 1 ms apart put the commit off until
   * the backlog was refused (tests/store/journal-writer.test.ts).
   */
  private sliceNext(): void {
    if (this.sliceDue) return;
    this.timers.clearTimeout(this.commitTimer);
    this.sliceDue = true;
    this.commitTimer = this.timers.setTimeout(this.commitInSlices, 0);
  }

  /** Commits every pending row now (a read or close waits on it); throws the commit's error. */
  private commitAll(): void {
    this.timers.clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.sliceDue = false;
    if (this.pending.length === 0 || this.commitRows(this.pending.length)) return;
    this.schedule();
    throw new Error(this.commitError);
  }

  private schedule(): void {
    this.commitTimer ??= this.timers.setTimeout(this.commitInSlices, COMMIT_INTERVAL_MS);
  }

  /** Deletes the runs older than `before` (of `team`, or of no team), PRUNE_CHUNK rows a task; resolves to the count. */
  private prune(before: number, team: string | undefined): Promise<number> {
    if (!this.db) throw this.notOpen();
    // What is journaled but not committed is counted and deleted too.
    this.commitAll();
    const db = this.db;
    const scope = team === undefined ? "team_id IS NULL" : "team_id = ?";
    const chunk = db.query(`DELETE FROM runs WHERE rowid IN (SELECT rowid FROM runs WHERE ts < ? AND ${scope} LIMIT ?)`);
    const args = team === undefined ? [before, PRUNE_CHUNK] : [before, team, PRUNE_CHUNK];
    let deleted = 0;
    return new Promise<number>((resolve, reject) => {
      const next = (): void => {
        // Closed meanwhile: what was deleted is deleted, the rest waits for the next prune.
        if (this.db !== db) return resolve(deleted);
        try {
          const n = chunk.run(...args).changes;
          deleted += n;
          if (n < PRUNE_CHUNK) return resolve(deleted);
        } catch (e) {
          return reject(e);
        }
        this.timers.setTimeout(next, 0);
      };
      next();
    });
  }

  private insert(json: string): void {
    if (!this.journal) throw this.notOpen();
    if (this.pending.length >= MAX_PENDING_ROWS) throw new Error(this.commitError ?? "run log commits are behind");
    const rows = JSON.parse(json) as RunRowTuple[];
    // All or nothing, before it is journaled: a row that can never be committed would hold up the rest.
    for (const row of rows) assertInsertable(row);
    this.journal.append(json);
    if (this.pending.length === 0) this.journalSince = this.timers.now();
    for (const row of rows) this.pending.push(row);
    if (this.pending.length < COMMIT_ROWS || this.commitError) return this.schedule();
    // After this batch's acknowledgement has been posted.
    this.sliceNext();
  }
}
