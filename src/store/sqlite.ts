// Embedded store on bun:sqlite. Bun-only API: keep it inside src/store.
// Run-log writes and counter increments (budget spend) of a file database go to
// a worker thread (sqlite-writer.ts), which journals each run batch and commits
// rows in large transactions, so the thread that serves requests never waits on
// a page write or on the file's write lock; reads and the rare other writes
// (pruning, agents, settings) stay on this connection. Reads of runs first ask
// the worker to commit what it has journaled.

import type { Database, SQLQueryBindings } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { runRowTuple, type RunRowTuple } from "./row.ts";
import { runInserter } from "./sqlite-insert.ts";
import { recoverJournals, releaseJournal, reserveJournal } from "./sqlite-journal.ts";
import type { WriterReply, WriterRequest } from "./journal-writer.ts";
import type { CheckpointerReply, CheckpointerRequest } from "./sqlite-checkpointer.ts";
import { CHECKPOINT_BACKSTOP_PAGES, openConnection } from "./sqlite-connection.ts";
import { SqlStore, type Row } from "./sql-store.ts";
import type { RunRecord } from "./types.ts";

export class SqliteStore extends SqlStore {
  readonly driver = "sqlite" as const;
  private readonly db: Database;
  private closed = false;
  /** Off-thread inserts for a file database; an in-memory one cannot be shared with a second connection. */
  private readonly thread: WriterThread | undefined;
  private insertHere: ((rows: RunRowTuple[]) => void) | undefined;

  /** onError: failures off the request path that lose nothing, such as a WAL checkpoint's. */
  constructor(
    private readonly path: string,
    onError: (message: string) => void = (message) => console.error(message),
  ) {
    super();
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = openConnection(path);
    this.db.run("PRAGMA journal_mode = WAL");
    this.db.run("PRAGMA foreign_keys = ON");
    this.thread = path === ":memory:" ? undefined : new WriterThread(path, onError);
  }

  protected async all(text: string, params: unknown[]): Promise<Row[]> {
    return this.db.query(text).all(...(params as SQLQueryBindings[])) as Row[];
  }

  protected async run(text: string, params: unknown[]): Promise<number> {
    return this.db.query(text).run(...(params as SQLQueryBindings[])).changes;
  }

  protected override async settleRuns(): Promise<void> {
    await this.thread?.sync();
  }

  override async prune(before: number): Promise<number> {
    if (!this.thread) return super.prune(before);
    await this.thread.sync();
    // Mostly there is nothing old enough: an index probe here spares waking (or starting) the writer.
    if (!this.db.query("SELECT 1 FROM runs WHERE ts < ? LIMIT 1").get(before)) return 0;
    return this.thread.prune(before);
  }

  override async incrBy(key: string, delta: number): Promise<number> {
    return this.thread ? this.thread.incr(key, delta) : super.incrBy(key, delta);
  }

  async insertRuns(records: RunRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.thread) return this.thread.insert(records);
    (this.insertHere ??= runInserter(this.db))(records.map(runRowTuple));
  }

  async migrate(): Promise<void> {
    // IMMEDIATE takes the write lock up front so two processes cannot both
    // decide the same migration is pending.
    this.db
      .transaction(() => {
        this.db.run(CREATE_MIGRATIONS_TABLE);
        const applied = this.db.query("SELECT version FROM schema_migrations").all() as { version: number }[];
        for (const m of pendingMigrations(applied.map((r) => r.version), "sqlite")) {
          for (const statement of m.statements) this.db.run(statement);
          this.db.query(RECORD_MIGRATION).run(m.version, m.name, new Date().toISOString());
        }
      })
      .immediate();
    // Runs a dead process journaled but did not commit (kill -9, power loss).
    if (this.thread) recoverJournals(this.path, runInserter(this.db));
  }

  protected async storageIntact(): Promise<boolean> {
    const rows = this.db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.length === 1 && rows[0].integrity_check === "ok";
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread?.close();
    // Fold the WAL back into the main file so the db is a single file at rest.
    this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}

/**
 * A worker's entry (a file in this folder): beside this file when run from
 * source; in the compiled binary (built with each worker as an entry point of
 * its own, see package.json) Bun embeds it under its path relative to src/,
 * and this module's URL is the binary's (`/$bunfs/root/…`, or `B:/~BUN/root/…`
 * on Windows).
 */
const workerEntry = (file: string): string =>
  /\/\$bunfs\/|\/~BUN\//.test(import.meta.url) ? `./store/${file}` : new URL(`./${file}`, import.meta.url).href;
const WRITER_ENTRY = workerEntry("sqlite-writer.ts");
const CHECKPOINTER_ENTRY = workerEntry("sqlite-checkpointer.ts");

/**
 * The main-thread side of the writer worker: one pending promise per request,
 * settled by the worker's reply (an insert's once its batch is journaled). The
 * worker starts on the first write (start-up and CLI commands that never
 * write pay nothing) and again after it died, on the same journal: the new
 * worker commits what the dead one journaled. A death fails the batches it
 * held, which the run writer retries (re-inserting an id is a no-op, so a
 * batch journaled just before the death is not doubled).
 */
class WriterThread {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve(value: number | undefined): void; reject(e: Error): void }>();
  private readonly journal: string;
  /** A worker died after journaling: its rows wait in the journal for the next worker. */
  private diedWithRows = false;
  /** Folds the WAL into the file off the writer's thread; started with the first writer, kept across writer deaths. */
  private checkpointer: Worker | undefined;

  constructor(
    private readonly path: string,
    private readonly onError: (message: string) => void,
  ) {
    this.journal = reserveJournal(path);
  }

  async insert(records: RunRecord[]): Promise<void> {
    await this.request({ op: "insert", seq: ++this.seq, json: JSON.stringify(records.map(runRowTuple)) });
  }

  /** Adds to a kv counter on the writer's connection; resolves to the new value. */
  async incr(key: string, delta: number): Promise<number> {
    return Number(await this.request({ op: "incr", seq: ++this.seq, key, delta }));
  }

  /** Deletes runs older than `before` on the writer's thread, in chunks; resolves to the count. */
  async prune(before: number): Promise<number> {
    return Number(await this.request({ op: "prune", seq: ++this.seq, before }));
  }

  /** Every acknowledged batch is committed to the table. */
  async sync(): Promise<void> {
    // No worker: nothing was journaled, unless one died holding rows (a new one replays them on open).
    if (this.worker || this.diedWithRows) await this.request({ op: "sync", seq: ++this.seq });
  }

  async close(): Promise<void> {
    if (this.worker) {
      // A failed final commit leaves the journal on disk for the next open to replay.
      await this.request({ op: "close", seq: ++this.seq }).catch(() => {});
      this.worker?.terminate();
      this.worker = undefined;
      // A prune the close cut short never answers.
      for (const p of this.pending.values()) p.reject(new Error("the store closed"));
      this.pending.clear();
    }
    await this.stopCheckpointer();
    releaseJournal(this.journal);
  }

  /** Resolves to the reply's value: an incr's new count, nothing for the other requests. */
  private request(msg: Extract<WriterRequest, { seq: number }>): Promise<number | undefined> {
    const worker = this.worker ?? this.start();
    // An unanswered batch keeps the process alive (a shutdown waits for it); an idle worker does not.
    if (this.pending.size === 0) worker.ref();
    return new Promise<number | undefined>((resolve, reject) => {
      this.pending.set(msg.seq, { resolve, reject });
      worker.postMessage(msg);
    });
  }

  private start(): Worker {
    const worker = new Worker(WRITER_ENTRY);
    this.diedWithRows = false;
    worker.onmessage = (event: MessageEvent<WriterReply>) => {
      const { seq, error, value } = event.data;
      const p = this.pending.get(seq);
      if (!p) return;
      this.pending.delete(seq);
      if (this.pending.size === 0) worker.unref();
      if (error === undefined) p.resolve(value);
      else p.reject(new Error(error));
    };
    worker.onerror = (event) => this.fail(worker, new Error(`run log writer thread failed: ${event.message}`));
    worker.addEventListener("close", () => this.fail(worker, new Error("run log writer thread exited")));
    worker.postMessage({ op: "open", path: this.path, journal: this.journal } satisfies WriterRequest);
    this.worker = worker;
    this.checkpointer ??= this.startCheckpointer();
    return worker;
  }

  private startCheckpointer(): Worker {
    const checkpointer = new Worker(CHECKPOINTER_ENTRY);
    // It runs for as long as the store is open, but never keeps the process alive on its own.
    checkpointer.unref();
    checkpointer.onmessage = (event: MessageEvent<CheckpointerReply>) => {
      if ("error" in event.data) this.onError(event.data.error);
    };
    const died = () => {
      if (this.checkpointer !== checkpointer) return;
      this.checkpointer = undefined;
      this.onError(`run log checkpointer thread exited: the WAL is folded into the database only past ${CHECKPOINT_BACKSTOP_PAGES} pages`);
    };
    checkpointer.onerror = died;
    checkpointer.addEventListener("close", died);
    checkpointer.postMessage({ op: "open", path: this.path } satisfies CheckpointerRequest);
    return checkpointer;
  }

  /** Waits for a checkpoint in progress to end, so the store's final checkpoint is not refused as busy. */
  private async stopCheckpointer(): Promise<void> {
    const checkpointer = this.checkpointer;
    if (!checkpointer) return;
    this.checkpointer = undefined;
    checkpointer.ref();
    await new Promise<void>((resolve) => {
      checkpointer.onmessage = (event: MessageEvent<CheckpointerReply>) => {
        if ("closed" in event.data) resolve();
      };
      checkpointer.addEventListener("close", () => resolve());
      checkpointer.postMessage({ op: "close" } satisfies CheckpointerRequest);
    });
    checkpointer.terminate();
  }

  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.diedWithRows = true;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
