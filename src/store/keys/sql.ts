// The api_keys table (migration 6) on either driver. Lookups go by primary key or by the unique
// hash, so every request's key check is one indexed read, with no cache to outlive a revocation.
import type { Row, SqlConnection } from "../sql.ts";
import { teamFromRow } from "../teams/sql.ts";
import type { Team } from "../teams/types.ts";
import type { ApiKey, ApiKeyStore } from "./types.ts";

export class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertKey(k: ApiKey): Promise<void> {
    await this.sql.run(
      `INSERT INTO api_keys (id, team_id, type, name, prefix, hash, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [k.id, k.team_id, k.type, k.name, k.prefix, k.hash, k.created_at, k.revoked_at],
    );
  }

  async getKey(id: string): Promise<ApiKey | undefined> {
    const row = await this.sql.one("SELECT * FROM api_keys WHERE id = $1", [id]);
    return row ? fromRow(row) : undefined;
  }

  async keyAndTeamByHash(hash: string): Promise<{ key: ApiKey; team: Team | undefined } | undefined> {
    const row = await this.sql.one(
      `SELECT k.*, t.id AS t_id, t.name AS t_name, t.plan AS t_plan, t.created_at AS t_created_at
       FROM api_keys k LEFT JOIN teams t ON t.id = k.team_id WHERE k.hash = $1`,
      [hash],
    );
    if (!row) return undefined;
    const team = row.t_id == null ? undefined : teamFromRow({ id: row.t_id, name: row.t_name, plan: row.t_plan, created_at: row.t_created_at });
    return { key: fromRow(row), team };
  }

  async listKeys(teamId: string): Promise<ApiKey[]> {
    return (await this.sql.all("SELECT * FROM api_keys WHERE team_id = $1 ORDER BY created_at, id", [teamId])).map(fromRow);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    return (await this.sql.run("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [at, id])) > 0;
  }
}

function fromRow(row: Row): ApiKey {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    // Least privilege for anything unexpected in the column.
    type: row.type === "standard" ? "standard" : "read_only",
    name: String(row.name),
    prefix: String(row.prefix),
    hash: String(row.hash),
    created_at: String(row.created_at),
    revoked_at: row.revoked_at == null ? null : String(row.revoked_at),
  };
}
