// The budgets' spend counters on either driver: rows of the kv table (migration 2) under their
// spend keys, where databases written before the store had aggregates keep them.
import type { Dialect } from "../migrations.ts";
import { SELECT_VALUE } from "../kv/sql.ts";
import type { SqlConnection } from "../sql.ts";
import type { BudgetSpend } from "./types.ts";

// Counters are stored as text; SQLite's `+` coerces text to numbers itself,
// Postgres needs explicit casts.
const INCR_SUM: Record<Dialect, string> = {
  sqlite: "kv.value + excluded.value",
  postgres: "(kv.value::double precision + excluded.value::double precision)::text",
};

/** Adds $2 to the counter $1 (created at $2), returning the new value (SQLite's writer thread runs it too). */
export function incrStatement(dialect: Dialect): string {
  return `INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = ${INCR_SUM[dialect]} RETURNING value`;
}

export class SqlBudgetSpend implements BudgetSpend {
  constructor(protected readonly sql: SqlConnection) {}

  async spent(key: string): Promise<number> {
    const row = await this.sql.one(SELECT_VALUE, [key]);
    return row ? Number(row.value) : 0;
  }

  async add(key: string, delta: number): Promise<number> {
    const row = await this.sql.one(incrStatement(this.sql.dialect), [key, String(delta)]);
    return Number(row!.value);
  }
}
