// The responses table on either driver. Its JSON columns are TEXT on both: a stored response is
// given back as it was sent, and nothing queries inside it.
import type { Row, SqlConnection } from "../sql.ts";
import type { ResponseStore, StoredResponse } from "./types.ts";

/**
 * Rows a prune deletes per statement: on SQLite a delete runs on the connection that serves
 * requests, so a long backlog (after a long stop) goes in short steps.
 */
const PRUNE_BATCH = 500;

export class SqlResponseStore implements ResponseStore {
  constructor(private readonly sql: SqlConnection) {}

  async put(r: StoredResponse): Promise<void> {
    await this.sql.run(
      `INSERT INTO responses (id, ts, provider, input, response) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET ts = excluded.ts, provider = excluded.provider, input = excluded.input, response = excluded.response`,
      [r.id, r.ts, r.provider, JSON.stringify(r.input), JSON.stringify(r.response)],
    );
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const row = await this.sql.one("SELECT * FROM responses WHERE id = $1", [id]);
    return row ? fromRow(row) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM responses WHERE id = $1", [id])) > 0;
  }

  async prune(before: number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.sql.run(`DELETE FROM responses WHERE id IN (SELECT id FROM responses WHERE ts < $1 LIMIT ${PRUNE_BATCH})`, [before]);
      total += n;
      if (n < PRUNE_BATCH) return total;
    }
  }
}

function fromRow(row: Row): StoredResponse {
  return {
    id: String(row.id),
    ts: Number(row.ts),
    provider: String(row.provider),
    input: JSON.parse(String(row.input)) as unknown[],
    response: JSON.parse(String(row.response)) as Record<string, unknown>,
  };
}
