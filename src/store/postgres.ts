// Shared store on Postgres via Bun.SQL. Bun-only API: keep it inside this file.

import { SQL } from "bun";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { RUN_COLUMN_KINDS, RUN_COLUMNS, toRunRow, type ColumnKind } from "./row.ts";
import { SqlStore, type Row } from "./sql-store.ts";
import type { RunRecord } from "./types.ts";

const RECORDSET_TYPE: Record<ColumnKind, string> = {
  text: "text",
  int: "bigint",
  real: "double precision",
  bool: "boolean",
  // JSON arrives as text inside the row and is parsed by the ::jsonb cast.
  json: "text",
};

// The whole batch travels as one JSON parameter, unpacked server-side: one
// prepared statement for any batch size, no bind-parameter limit, and a
// single statement is atomic on its own.
const INSERT_RUNS = `INSERT INTO runs (${RUN_COLUMNS.join(", ")})
  SELECT ${RUN_COLUMNS.map((c) => (RUN_COLUMN_KINDS[c] === "json" ? `${c}::jsonb` : c)).join(", ")}
  FROM jsonb_to_recordset($1::jsonb)
    AS r(${RUN_COLUMNS.map((c) => `${c} ${RECORDSET_TYPE[RUN_COLUMN_KINDS[c]]}`).join(", ")})
  ON CONFLICT (id) DO NOTHING`;

// Restricting schema names makes them safe to splice into DDL and search_path.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export class PostgresStore extends SqlStore {
  readonly driver = "postgres" as const;
  private readonly sql: SQL;

  constructor(
    url: string,
    private readonly schema?: string,
  ) {
    super();
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new Error(`invalid Postgres schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`);
    }
    // search_path is set on every pooled connection, so tables stay unqualified.
    this.sql = new SQL(url, schema === undefined ? {} : { connection: { search_path: schema } });
  }

  protected async all(text: string, params: unknown[]): Promise<Row[]> {
    return (await this.sql.unsafe(text, params)) as Row[];
  }

  protected async run(text: string, params: unknown[]): Promise<number> {
    return (await this.sql.unsafe(text, params)).count as number;
  }

  async insertRuns(records: RunRecord[]): Promise<void> {
    if (records.length > 0) await this.sql.unsafe(INSERT_RUNS, [this.sql.json(records.map(toRunRow))]);
  }

  async migrate(): Promise<void> {
    await this.sql.begin(async (tx) => {
      // Instances starting together take turns; the lock ends with the transaction.
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`relay.migrate.${this.schema ?? ""}`}))`;
      if (this.schema !== undefined) await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await tx.unsafe(CREATE_MIGRATIONS_TABLE);
      const applied = (await tx`SELECT version FROM schema_migrations`) as { version: number }[];
      for (const m of pendingMigrations(applied.map((r) => r.version), "postgres")) {
        for (const statement of m.statements) await tx.unsafe(statement);
        await tx.unsafe(RECORD_MIGRATION, [m.version, m.name, new Date().toISOString()]);
      }
    });
  }

  protected async storageIntact(): Promise<boolean> {
    const [row] = (await this.sql`SELECT 1 AS ok`) as { ok: number }[];
    return row?.ok === 1;
  }

  async close(): Promise<void> {
    await this.sql.close();
  }
}
