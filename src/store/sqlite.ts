// Embedded store on bun:sqlite. Bun-only API: keep it inside src/store.
// Run-log writes, pruning and counter increments (budget spend) of a file
// database go to a worker thread (sqlite-writer.ts), which journals each run
// batch and commits rows in large transactions, so the thread that serves
// requests never waits on a page write or on the file's write lock. Reads and
// the WAL's checkpoints go to a second worker (sqlite-reader.ts), so a scan of
// a day of runs does not stop the requests either. Only the rare small writes
// (agents, settings) and a key's value (one row by its primary key) stay on
// this connection. Reads of runs first ask the writer to commit what it has
// journaled.

import type { Database, SQLQueryBindings } from "bun:sqlite";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { runRowTuple, type RunRowTuple } from "./row.ts";
import { runInserter } from "./sqlite-insert.ts";
import { preparePrivateDatabase } from "./sqlite-files.ts";
import { recoverJournals, releaseJournal, reserveJournal } from "./sqlite-journal.ts";
import type { WriterReply, WriterRequest } from "./journal-writer.ts";
import type { ReaderReply, ReaderRequest } from "./sqlite-reader.ts";
import { CHECKPOINT_BACKSTOP_PAGES, openConnection } from "./sqlite-connection.ts";
import { kvValue, SELECT_KV, SqlStore, type Row } from "./sql-store.ts";
import { WorkerRequests, workerEntry } from "./worker-requests.ts";
import type { RunRecord } from "./types.ts";

export class SqliteStore extends SqlStore {
  readonly driver = "sqlite" as const;
  private readonly db: Database;
  private closed = false;
  /** Off-thread inserts, reads and checkpoints for a file database; an in-memory one cannot be shared with a second connection. */
  private readonly thread: WriterThread | undefined;
  private readonly reader: ReaderThread | undefined;
  private insertHere: ((rows: RunRowTuple[]) => void) | undefined;
  /** The last integrity_check's verdict, and when it was asked for. */
  private integrity: { at: number; ok: boolean } | undefined;
  private integrityCheckRunning: Promise<boolean> | undefined;

  /** onError: failures off the request path that lose nothing, such as a WAL checkpoint's. */
  constructor(
    private readonly path: string,
    onError: (message: string) => void = (message) => console.error(message),
  ) {
    super();
    if (path !== ":memory:") preparePrivateDatabase(path);
    this.db = openConnection(path);
    this.db.run("PRAGMA journal_mode = WAL");
    this.db.run("PRAGMA foreign_keys = ON");
    if (path === ":memory:") return;
    const reader = (this.reader = new ReaderThread(path, onError));
    // Its checkpoints are needed as soon as anything is written.
    this.thread = new WriterThread(path, () => reader.ensure());
  }

  protected async all(text: string, params: unknown[]): Promise<Row[]> {
    if (this.reader) return this.reader.all(text, params);
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

  /** One row by its key, read here: the first budgeted request would otherwise wait ~5 ms for the reader thread to start. */
  override async getKv(key: string): Promise<string | undefined> {
    return kvValue(this.db.query(SELECT_KV).get(key) as Row | null);
  }

  override async incrBy(key: string, delta: number): Promise<number> {
    return this.thread ? this.thread.incr(key, delta) : super.incrBy(key, delta);
  }

  prepareWrites(): void {
    this.thread?.ready();
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

  /**
   * SQLite's integrity_check reads the whole file (962 ms for a day of 1,000,000 runs, 270 MB), and
   * the hosted /health asks on every call, which a load balancer makes every few seconds. So a
   * verdict is reused for INTEGRITY_TTL_MS, and callers that ask while a check runs share it.
   */
  protected async storageIntact(): Promise<boolean> {
    const now = Date.now();
    if (this.integrity && now - this.integrity.at < INTEGRITY_TTL_MS) return this.integrity.ok;
    this.integrityCheckRunning ??= this.all("PRAGMA integrity_check", [])
      .then((rows) => {
        const ok = rows.length === 1 && rows[0].integrity_check === "ok";
        this.integrity = { at: now, ok };
        return ok;
      })
      .finally(() => (this.integrityCheckRunning = undefined));
    return this.integrityCheckRunning;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread?.close();
    await this.reader?.close();
    // Fold the WAL back into the main file so the db is a single file at rest.
    this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}

/** How long an integrity_check's verdict stands (storageIntact). */
const INTEGRITY_TTL_MS = 10 * 60_000;
const WRITER_ENTRY = workerEntry("sqlite-writer.ts");
const READER_ENTRY = workerEntry("sqlite-reader.ts");

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
  private requests: WorkerRequests<WriterReply> | undefined;
  private readonly journal: string;
  /** A worker died after journaling: its rows wait in the journal for the next worker. */
  private diedWithRows = false;

  /** `started`: called as each worker starts. */
  constructor(
    private readonly path: string,
    private readonly started: () => void,
  ) {
    this.journal = reserveJournal(path);
  }

  async insert(records: RunRecord[]): Promise<void> {
    const json = JSON.stringify(records.map(runRowTuple));
    await this.request((seq) => ({ op: "insert", seq, json }));
  }

  /** Adds to a kv counter on the writer's connection; resolves to the new value. */
  async incr(key: string, delta: number): Promise<number> {
    return Number((await this.request((seq) => ({ op: "incr", seq, key, delta }))).value);
  }

  /** Deletes runs older than `before` on the writer's thread, in chunks; resolves to the count. */
  async prune(before: number): Promise<number> {
    return Number((await this.request((seq) => ({ op: "prune", seq, before }))).value);
  }

  /** Starts the worker unless it runs. */
  ready(): void {
    this.requests ?? this.start();
  }

  /** Every acknowledged batch is committed to the table. */
  async sync(): Promise<void> {
    // No worker: nothing was journaled, unless one died holding rows (a new one replays them on open).
    if (this.requests || this.diedWithRows) await this.request((seq) => ({ op: "sync", seq }));
  }

  async close(): Promise<void> {
    // A failed final commit leaves the journal on disk for the next open to replay; a prune the
    // close cut short is rejected.
    await this.requests?.close((seq) => ({ op: "close", seq }));
    this.requests = undefined;
    releaseJournal(this.journal);
  }

  private request(build: (seq: number) => Extract<WriterRequest, { seq: number }>): Promise<WriterReply> {
    return (this.requests ?? this.start()).request(build);
  }

  private start(): WorkerRequests<WriterReply> {
    const worker = new Worker(WRITER_ENTRY);
    const requests = new WorkerRequests<WriterReply>(worker, "run log writer thread", {
      exit: () => {
        this.requests = undefined;
        this.diedWithRows = true;
      },
    });
    this.diedWithRows = false;
    worker.postMessage({ op: "open", path: this.path, journal: this.journal } satisfies WriterRequest);
    this.requests = requests;
    this.started();
    return requests;
  }
}

/**
 * The main-thread side of the reader worker (sqlite-reader.ts): reads, and the
 * WAL's checkpoints. It starts on the first read or with the writer, and again
 * on the next read or writer start after it died.
 */
class ReaderThread {
  private requests: WorkerRequests<ReaderReply> | undefined;

  constructor(
    private readonly path: string,
    private readonly onError: (message: string) => void,
  ) {}

  async all(text: string, params: unknown[]): Promise<Row[]> {
    return (await this.ensure().request((seq) => ({ op: "all", seq, text, params }) satisfies ReaderRequest)).rows as Row[];
  }

  ensure(): WorkerRequests<ReaderReply> {
    return this.requests ?? this.start();
  }

  /** Waits for a read or checkpoint in progress to end, so the store's final checkpoint is not refused as busy. */
  async close(): Promise<void> {
    await this.requests?.close((seq) => ({ op: "close", seq }));
    this.requests = undefined;
  }

  private start(): WorkerRequests<ReaderReply> {
    const worker = new Worker(READER_ENTRY);
    const requests = new WorkerRequests<ReaderReply>(worker, "SQLite reader thread", {
      exit: (error) => {
        this.requests = undefined;
        this.onError(`${error.message}: reads start a new one; meanwhile the WAL is folded into the database only past ${CHECKPOINT_BACKSTOP_PAGES} pages`);
      },
      notice: (notice) => this.onError(notice.error ?? ""),
    });
    worker.postMessage({ op: "open", path: this.path } satisfies ReaderRequest);
    this.requests = requests;
    return requests;
  }
}
