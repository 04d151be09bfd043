// What an aggregate's SQL runs on: one database connection as both drivers offer it. The
// statements run unchanged on SQLite and Postgres (both accept `$n` placeholders); where they
// differ, the dialect says how.
import type { Dialect } from "./migrations.ts";

export type Row = Record<string, unknown>;

/** A nullable text column's value (Postgres and SQLite both answer NULL as null). */
export const textOrNull = (v: unknown): string | null => (v == null ? null : String(v));

/** A nullable number column's value (Postgres answers BIGINT as a string). */
export const numberOrNull = (v: unknown): number | null => (v == null ? null : Number(v));

export interface SqlConnection {
  readonly dialect: Dialect;
  /** Rows of a query (SQLite: on its reader thread, when it has one). */
  all(text: string, params: unknown[]): Promise<Row[]>;
  /**
   * The row a statement on one primary key returns (a read, an upsert's RETURNING), if any: SQLite
   * answers it on its main connection, which costs less than a hop to a thread.
   */
  one(text: string, params: unknown[]): Promise<Row | undefined>;
  /** Runs a statement; returns the number of rows it changed. */
  run(text: string, params: unknown[]): Promise<number>;
}

/** WHERE clause and its parameters, built in a fixed column order. */
export function whereOf(conditions: [column: string, value: unknown][]): { where: string; params: unknown[] } {
  const present = conditions.filter(([, value]) => value !== undefined);
  if (present.length === 0) return { where: "", params: [] };
  const clauses = present.map(([column], i) => `${column} $${i + 1}`);
  return { where: ` WHERE ${clauses.join(" AND ")}`, params: present.map(([, value]) => value) };
}
