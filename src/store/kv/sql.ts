// The kv table (migration 2) on either driver.
import type { SqlConnection } from "../sql.ts";
import type { KvStore } from "./types.ts";

/** A key's value: one row by its primary key. */
export const SELECT_VALUE = "SELECT value FROM kv WHERE key = $1";

export class SqlKv implements KvStore {
  constructor(private readonly sql: SqlConnection) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.sql.one(SELECT_VALUE, [key]);
    return row ? String(row.value) : undefined;
  }

  async set(key: string, value: string): Promise<void> {
    await this.sql.run(
      "INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [key, value],
    );
  }
}
