// The provider_credentials table (migration 11) on either driver. A replacement is one upsert, so two
// concurrent PUTs leave one whole row, never a mix of one's ciphertext and the other's suffix.
import { textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { CredentialStore, StoredCredential } from "./types.ts";

export class SqlCredentialStore implements CredentialStore {
  constructor(private readonly sql: SqlConnection) {}

  async putCredential(c: Omit<StoredCredential, "rotated_at">): Promise<StoredCredential> {
    const row = await this.sql.one(
      `INSERT INTO provider_credentials (team_id, provider, ciphertext, suffix, created_at, rotated_at) VALUES ($1, $2, $3, $4, $5, NULL)
       ON CONFLICT (team_id, provider) DO UPDATE SET ciphertext = excluded.ciphertext, suffix = excluded.suffix, rotated_at = excluded.created_at
       RETURNING *`,
      [c.team_id, c.provider, c.ciphertext, c.suffix, c.created_at],
    );
    return fromRow(row!);
  }

  async getCredential(teamId: string, provider: string): Promise<StoredCredential | undefined> {
    const row = await this.sql.one("SELECT * FROM provider_credentials WHERE team_id = $1 AND provider = $2", [teamId, provider]);
    return row ? fromRow(row) : undefined;
  }

  async listCredentials(teamId: string): Promise<StoredCredential[]> {
    return (await this.sql.all("SELECT * FROM provider_credentials WHERE team_id = $1 ORDER BY provider", [teamId])).map(fromRow);
  }

  async deleteCredential(teamId: string, provider: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM provider_credentials WHERE team_id = $1 AND provider = $2", [teamId, provider])) > 0;
  }
}

function fromRow(row: Row): StoredCredential {
  return {
    team_id: String(row.team_id),
    provider: String(row.provider),
    ciphertext: String(row.ciphertext),
    suffix: String(row.suffix),
    created_at: String(row.created_at),
    rotated_at: textOrNull(row.rotated_at),
  };
}
