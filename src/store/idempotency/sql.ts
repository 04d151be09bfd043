// The idempotency_keys table (migration 7) on either driver. A claim is an insert that does nothing
// when the key exists, so two concurrent requests with one key cannot both run.
import type { SqlConnection } from "../sql.ts";
import type { IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from "./types.ts";

export class SqlIdempotencyStore implements IdempotencyStore {
  constructor(private readonly sql: SqlConnection) {}

  async claim(team: string, key: string, fingerprint: string, now: string): Promise<IdempotencyClaim> {
    const inserted = await this.sql.run(
      "INSERT INTO idempotency_keys (team_id, key, fingerprint, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (team_id, key) DO NOTHING",
      [team, key, fingerprint, now],
    );
    if (inserted === 1) return { kind: "claimed" };
    const row = await this.sql.one("SELECT fingerprint, status, body FROM idempotency_keys WHERE team_id = $1 AND key = $2", [team, key]);
    // Released between the insert and the read: the caller may simply retry.
    if (!row) return { kind: "seen", fingerprint };
    const seen = { kind: "seen" as const, fingerprint: String(row.fingerprint) };
    return row.status === null ? seen : { ...seen, answer: { status: Number(row.status), body: String(row.body) } };
  }

  async complete(team: string, key: string, answer: IdempotentAnswer): Promise<void> {
    await this.sql.run("UPDATE idempotency_keys SET status = $1, body = $2 WHERE team_id = $3 AND key = $4", [answer.status, answer.body, team, key]);
  }

  async release(team: string, key: string): Promise<void> {
    await this.sql.run("DELETE FROM idempotency_keys WHERE team_id = $1 AND key = $2 AND status IS NULL", [team, key]);
  }
}
