// Embedded store on bun:sqlite. Bun-only API: keep it inside src/store.
// Run-log writes, pruning and counter increments (budget spend) of a file
// database go to a worker thread (sqlite-writer.ts), which journals each run
// batch and commits rows in large transactions, so the thread that serves
// requests never waits on a page write or on the file's write lock. Reads and
// the WAL's checkpoints go to a second worker (sqlite-reader.ts), so a scan of
// a day of runs does not stop the requests either. Only the rare small writes
// (agents, settings) and reads by a key (one row by its primary key) stay on
// this connection. Reads of runs first ask the writer to commit what it has
// journaled. The aggregates that use the threads: runs/sqlite.ts, budgets/sqlite.ts.

import type { Database, SQLQueryBindings } from "bun:sqlite";
import { SqliteBudgetSpend } from "./budgets/sqlite.ts";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { SqliteRunLog } from "./runs/sqlite.ts";
import type { Row, SqlConnection } from "./sql.ts";
import { SqlStore } from "./sql-store.ts";
import { openConnection } from "./sqlite-connection.ts";
import { preparePrivateDatabase } from "./sqlite-files.ts";
import { runInserter } from "./sqlite-insert.ts";
import { recoverJournals } from "./sqlite-journal.ts";
import { ReaderThread, WriterThread } from "./sqlite-threads.ts";

export class SqliteStore extends SqlStore {
  readonly driver = "sqlite" as const;
  readonly runs: SqliteRunLog;
  readonly budgets: SqliteBudgetSpend;
  private readonly db: Database;
  private closed = false;
  /** Off-thread inserts, reads and checkpoints for a file database; an in-memory one cannot be shared with a second connection. */
  private readonly thread: WriterThread | undefined;
  private readonly reader: ReaderThread | undefined;
  /** The last integrity_check's verdict, and when it was asked for. */
  private integrity: { at: number; ok: boolean } | undefined;
  private integrityCheckRunning: Promise<boolean> | undefined;

  /** onError: failures off the request path that lose nothing, such as a WAL checkpoint's. */
  constructor(
    private readonly path: string,
    onError: (message: string) => void = (message) => console.error(message),
  ) {
    if (path !== ":memory:") preparePrivateDatabase(path);
    const db = openConnection(path);
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA foreign_keys = ON");
    const reader = path === ":memory:" ? undefined : new ReaderThread(path, onError);
    // Its checkpoints are needed as soon as anything is written.
    const thread = reader && new WriterThread(path, () => reader.ensure());
    super(sqliteConnection(db, reader));
    this.db = db;
    this.reader = reader;
    this.thread = thread;
    this.runs = new SqliteRunLog(this.sql, db, thread);
    this.budgets = new SqliteBudgetSpend(this.sql, thread);
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
    this.integrityCheckRunning ??= this.sql.all("PRAGMA integrity_check", [])
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

/** The aggregates' SQL on SQLite: reads on the reader thread when there is one, reads by a key and writes here. */
function sqliteConnection(db: Database, reader: ReaderThread | undefined): SqlConnection {
  const bindings = (params: unknown[]) => params as SQLQueryBindings[];
  return {
    dialect: "sqlite",
    all: async (text, params) => (reader ? reader.all(numbered(text), params) : (db.query(numbered(text)).all(...bindings(params)) as Row[])),
    one: async (text, params) => (db.query(numbered(text)).get(...bindings(params)) as Row | null) ?? undefined,
    run: async (text, params) => db.query(numbered(text)).run(...bindings(params)).changes,
  };
}

const NUMBERED_MEMO_MAX = 1024;
const numberedMemo = new Map<string, string>();

/**
 * The aggregates' SQL writes Postgres' `$1`, `$2`, … To SQLite `$2` is a parameter *named* "$2",
 * numbered by where it first appears, so `… $2 … $1 …` would bind the first value to `$2`;
 * `?2` is SQLite's parameter number 2, which binds as Postgres does.
 */
function numbered(text: string): string {
  let out = numberedMemo.get(text);
  if (out === undefined) {
    out = text.replace(/\$(\d+)/g, "?$1");
    if (numberedMemo.size < NUMBERED_MEMO_MAX) numberedMemo.set(text, out);
  }
  return out;
}
