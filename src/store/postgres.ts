// Shared store on Postgres via Bun.SQL. Bun-only API: keep it inside src/store.

import { SQL } from "bun";
import { SqlBudgetSpend } from "./budgets/sql.ts";
import { CREATE_MIGRATIONS_TABLE, pendingMigrations, RECORD_MIGRATION } from "./migrations.ts";
import { PostgresRunLog } from "./runs/postgres.ts";
import type { Row, SqlConnection } from "./sql.ts";
import { SqlStore } from "./sql-store.ts";

// Restricting schema names makes them safe to splice into DDL and search_path.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export class PostgresStore extends SqlStore {
  readonly driver = "postgres" as const;
  readonly runs: PostgresRunLog;
  readonly budgets: SqlBudgetSpend;
  private readonly client: SQL;

  constructor(
    url: string,
    private readonly schema?: string,
  ) {
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new Error(`invalid Postgres schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`);
    }
    // search_path is set on every pooled connection, so tables stay unqualified.
    const client = new SQL(url, schema === undefined ? {} : { connection: { search_path: schema } });
    super(postgresConnection(client));
    this.client = client;
    this.runs = new PostgresRunLog(this.sql, client);
    this.budgets = new SqlBudgetSpend(this.sql);
  }

  async migrate(): Promise<void> {
    await this.client.begin(async (tx) => {
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
    const [row] = (await this.client`SELECT 1 AS ok`) as { ok: number }[];
    return row?.ok === 1;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function postgresConnection(client: SQL): SqlConnection {
  const all = async (text: string, params: unknown[]) => (await client.unsafe(text, params)) as Row[];
  return {
    dialect: "postgres",
    all,
    one: async (text, params) => (await all(text, params))[0],
    run: async (text, params) => (await client.unsafe(text, params)).count as number,
  };
}
