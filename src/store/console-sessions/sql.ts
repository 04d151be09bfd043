// The console_sessions table (migration 10) on either driver: one indexed read per console request.
import type { Row, SqlConnection } from "../sql.ts";
import type { ConsoleSession, ConsoleSessionStore } from "./types.ts";

export class SqlConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertSession(s: ConsoleSession): Promise<void> {
    await this.sql.run(
      "INSERT INTO console_sessions (token_hash, team_id, key_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
      [s.token_hash, s.team_id, s.key_id, s.created_at, s.expires_at],
    );
  }

  async getSession(tokenHash: string): Promise<ConsoleSession | undefined> {
    const row = await this.sql.one("SELECT * FROM console_sessions WHERE token_hash = $1", [tokenHash]);
    return row ? fromRow(row) : undefined;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.sql.run("DELETE FROM console_sessions WHERE token_hash = $1", [tokenHash]);
  }

  async deleteExpired(now: number): Promise<number> {
    return this.sql.run("DELETE FROM console_sessions WHERE expires_at <= $1", [now]);
  }
}

function fromRow(row: Row): ConsoleSession {
  return {
    token_hash: String(row.token_hash),
    team_id: String(row.team_id),
    key_id: String(row.key_id),
    created_at: String(row.created_at),
    // Postgres answers BIGINT as a string.
    expires_at: Number(row.expires_at),
  };
}
