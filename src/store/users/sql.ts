// The accounts tables (migration 12) on either driver: users, access_tokens, account_invites,
// account_throttle, and the cloud_enabled column of teams.
import { textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { AccessToken, AccountStore, FailureWindow, Invite, Role, User } from "./types.ts";

const ROLES: readonly Role[] = ["owner", "member", "read_only"];
// A hand-edited role falls back to the least.
const roleOf = (v: unknown): Role => (ROLES.includes(v as Role) ? (v as Role) : "read_only");

export class SqlAccountStore implements AccountStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertUser(u: User): Promise<boolean> {
    const changed = await this.sql.run(
      `INSERT INTO users (id, team_id, email, role, password_hash, created_at, password_reset_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (email) DO NOTHING`,
      [u.id, u.team_id, u.email, u.role, u.password_hash, u.created_at, u.password_reset_at],
    );
    return changed > 0;
  }

  async getUser(id: string): Promise<User | undefined> {
    const row = await this.sql.one("SELECT * FROM users WHERE id = $1", [id]);
    return row ? userOf(row) : undefined;
  }

  async userByEmail(email: string): Promise<User | undefined> {
    const row = await this.sql.one("SELECT * FROM users WHERE email = $1", [email]);
    return row ? userOf(row) : undefined;
  }

  async listUsers(teamId: string): Promise<User[]> {
    return (await this.sql.all("SELECT * FROM users WHERE team_id = $1 ORDER BY created_at, id", [teamId])).map(userOf);
  }

  async setPassword(userId: string, passwordHash: string, resetAt: string | null): Promise<boolean> {
    // SQLite numbers $n by first appearance, so the placeholders appear in order.
    const sql = resetAt === null ? "UPDATE users SET password_hash = $1 WHERE id = $2" : "UPDATE users SET password_hash = $1, password_reset_at = $2 WHERE id = $3";
    return (await this.sql.run(sql, resetAt === null ? [passwordHash, userId] : [passwordHash, resetAt, userId])) > 0;
  }

  async setRole(userId: string, role: Role): Promise<boolean> {
    return (await this.sql.run("UPDATE users SET role = $1 WHERE id = $2", [role, userId])) > 0;
  }

  async deleteUser(userId: string): Promise<boolean> {
    await this.sql.run("DELETE FROM access_tokens WHERE user_id = $1", [userId]);
    return (await this.sql.run("DELETE FROM users WHERE id = $1", [userId])) > 0;
  }

  async insertToken(t: AccessToken): Promise<void> {
    await this.sql.run(
      "INSERT INTO access_tokens (id, user_id, team_id, hash, prefix, name, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [t.id, t.user_id, t.team_id, t.hash, t.prefix, t.name, t.created_at, t.expires_at, t.revoked_at],
    );
  }

  async tokenByHash(hash: string): Promise<AccessToken | undefined> {
    const row = await this.sql.one("SELECT * FROM access_tokens WHERE hash = $1", [hash]);
    return row ? tokenOf(row) : undefined;
  }

  async getToken(id: string): Promise<AccessToken | undefined> {
    const row = await this.sql.one("SELECT * FROM access_tokens WHERE id = $1", [id]);
    return row ? tokenOf(row) : undefined;
  }

  async liveTokens(userId: string, now: number): Promise<AccessToken[]> {
    const rows = await this.sql.all("SELECT * FROM access_tokens WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id", [userId, now]);
    return rows.map(tokenOf);
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return (await this.sql.run("UPDATE access_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [at, id])) > 0;
  }

  async revokeUserTokens(userId: string, at: string): Promise<number> {
    return this.sql.run("UPDATE access_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL", [at, userId]);
  }

  async deleteExpiredTokens(now: number): Promise<number> {
    return this.sql.run("DELETE FROM access_tokens WHERE expires_at <= $1", [now]);
  }

  async insertInvite(i: Invite): Promise<void> {
    await this.sql.run(
      "INSERT INTO account_invites (id, team_id, email, role, hash, created_by, created_at, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [i.id, i.team_id, i.email, i.role, i.hash, i.created_by, i.created_at, i.expires_at, i.used_at],
    );
  }

  async inviteByHash(hash: string): Promise<Invite | undefined> {
    const row = await this.sql.one("SELECT * FROM account_invites WHERE hash = $1", [hash]);
    return row ? inviteOf(row) : undefined;
  }

  async useInvite(id: string, at: string): Promise<boolean> {
    return (await this.sql.run("UPDATE account_invites SET used_at = $1 WHERE id = $2 AND used_at IS NULL", [at, id])) > 0;
  }

  async cloudEnabled(teamId: string): Promise<boolean | undefined> {
    const row = await this.sql.one("SELECT cloud_enabled FROM teams WHERE id = $1", [teamId]);
    // SQLite answers 0 or 1, Postgres a boolean.
    return row ? Boolean(row.cloud_enabled) : undefined;
  }

  async setCloudEnabled(teamId: string, enabled: boolean): Promise<boolean> {
    // A literal, not a parameter: the drivers bind booleans differently; both read TRUE and FALSE.
    return (await this.sql.run(`UPDATE teams SET cloud_enabled = ${enabled ? "TRUE" : "FALSE"} WHERE id = $1`, [teamId])) > 0;
  }

  async failures(subject: string, since: number): Promise<FailureWindow | undefined> {
    const row = await this.sql.one("SELECT failures, window_start FROM account_throttle WHERE subject = $1 AND window_start > $2", [subject, since]);
    return row ? windowOf(row) : undefined;
  }

  async recordFailure(subject: string, now: number, since: number): Promise<FailureWindow> {
    // One upsert, so concurrent failures are all counted (across instances too, on Postgres).
    const row = await this.sql.one(
      `INSERT INTO account_throttle (subject, window_start, failures) VALUES ($1, $2, 1)
       ON CONFLICT (subject) DO UPDATE SET
         failures = CASE WHEN account_throttle.window_start <= $3 THEN 1 ELSE account_throttle.failures + 1 END,
         window_start = CASE WHEN account_throttle.window_start <= $3 THEN excluded.window_start ELSE account_throttle.window_start END
       RETURNING failures, window_start`,
      [subject, now, since],
    );
    return windowOf(row!);
  }

  async clearFailures(subject: string): Promise<void> {
    await this.sql.run("DELETE FROM account_throttle WHERE subject = $1", [subject]);
  }
}

function userOf(row: Row): User {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    email: String(row.email),
    role: roleOf(row.role),
    password_hash: String(row.password_hash),
    created_at: String(row.created_at),
    password_reset_at: textOrNull(row.password_reset_at),
  };
}

function tokenOf(row: Row): AccessToken {
  return {
    id: String(row.id),
    user_id: String(row.user_id),
    team_id: String(row.team_id),
    hash: String(row.hash),
    prefix: String(row.prefix),
    name: String(row.name),
    created_at: String(row.created_at),
    // Postgres answers BIGINT as a string.
    expires_at: Number(row.expires_at),
    revoked_at: textOrNull(row.revoked_at),
  };
}

function inviteOf(row: Row): Invite {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    email: String(row.email),
    role: roleOf(row.role),
    hash: String(row.hash),
    created_by: String(row.created_by),
    created_at: String(row.created_at),
    expires_at: Number(row.expires_at),
    used_at: textOrNull(row.used_at),
  };
}

const windowOf = (row: Row): FailureWindow => ({ failures: Number(row.failures), window_start: Number(row.window_start) });
