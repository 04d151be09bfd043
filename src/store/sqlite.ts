// Embedded store on bun:sqlite. Bun-only API: keep it inside this file.

import { Database, type SQLQueryBindings } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { RUN_COLUMNS, toRunRow, type RunRow } from "./row.ts";
import { SqlStore, type Row } from "./sql-store.ts";
import type { RunRecord } from "./types.ts";

// Named `$column` parameters bound from a RunRow (strict mode drops the `$`).
const INSERT_RUN = `INSERT INTO runs (${RUN_COLUMNS.join(", ")})
  VALUES (${RUN_COLUMNS.map((c) => `$${c}`).join(", ")}) ON CONFLICT (id) DO NOTHING`;

export class SqliteStore extends SqlStore {
  readonly driver = "sqlite" as const;
  private readonly db: Database;
  private closed = false;
  private readonly insertAll: (rows: RunRow[]) => void;

  constructor(path: string) {
    super();
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { create: true, strict: true });
    // busy_timeout first so switching to WAL waits for other processes' locks.
    this.db.run("PRAGMA busy_timeout = 5000");
    this.db.run("PRAGMA journal_mode = WAL");
    this.db.run("PRAGMA synchronous = NORMAL");
    this.db.run("PRAGMA foreign_keys = ON");
    // db.query() caches the compiled statement, so only the first batch compiles.
    this.insertAll = this.db.transaction((rows: RunRow[]) => {
      const insert = this.db.query(INSERT_RUN);
      for (const row of rows) insert.run(row);
    });
  }

  protected async all(text: string, params: unknown[]): Promise<Row[]> {
    return this.db.query(text).all(...(params as SQLQueryBindings[])) as Row[];
  }

  protected async run(text: string, params: unknown[]): Promise<number> {
    return this.db.query(text).run(...(params as SQLQueryBindings[])).changes;
  }

  async insertRuns(records: RunRecord[]): Promise<void> {
    if (records.length > 0) this.insertAll(records.map(toRunRow));
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
  }

  protected async storageIntact(): Promise<boolean> {
    const rows = this.db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.length === 1 && rows[0].integrity_check === "ok";
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Fold the WAL back into the main file so the db is a single file at rest.
    this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}
