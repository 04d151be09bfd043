// Signed-in browsers of the team console (src/surfaces/console/): a session is found by the hash
// of its random token, which only the browser's HttpOnly cookie holds. It names the key that signed
// in, so every request can re-check that key (a revoked key ends its sessions at once).

export interface ConsoleSession {
  /** Hex SHA-256 of the session token. */
  token_hash: string;
  team_id: string;
  key_id: string;
  /** ISO 8601. */
  created_at: string;
  /** Milliseconds since the epoch from which the session is worthless. */
  expires_at: number;
}

export interface ConsoleSessionStore {
  insertSession(session: ConsoleSession): Promise<void>;
  getSession(tokenHash: string): Promise<ConsoleSession | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Removes sessions whose expiry is `now` (ms) or earlier; returns how many. */
  deleteExpired(now: number): Promise<number>;
}
