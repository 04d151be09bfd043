// Accounts of the hosted API (issue 38 item 1): the users of a team with their roles, the access
// tokens they sign in for, the invites an owner makes for new members, the sign-in failure counters
// that throttle guessing, and the team's Cloud switch (a column of teams). Tokens and invites are
// kept by the SHA-256 of their secret, passwords by their argon2id hash (src/runtime/password.ts).

export type Role = "owner" | "member" | "read_only";

export interface User {
  /** `usr_…` */
  id: string;
  team_id: string;
  /** Lower-cased; unique across the service. */
  email: string;
  role: Role;
  /** PHC string of argon2id. */
  password_hash: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601 of the last reset by an operator; null until then. */
  password_reset_at: string | null;
}

export interface AccessToken {
  /** `tok_…`: how a token is listed and revoked; not the secret. */
  id: string;
  user_id: string;
  team_id: string;
  /** Hex SHA-256 of the secret. */
  hash: string;
  /** The secret's first characters, to tell tokens apart. */
  prefix: string;
  /** What the sign-in called it (a device, a CI job); may be empty. */
  name: string;
  /** ISO 8601. */
  created_at: string;
  /** Epoch milliseconds; the token authenticates nothing from then on. */
  expires_at: number;
  /** ISO 8601 once revoked. */
  revoked_at: string | null;
}

export interface Invite {
  /** `inv_…` */
  id: string;
  team_id: string;
  /** The one (lower-cased) address that may sign up with it. */
  email: string;
  role: Role;
  hash: string;
  /** The inviting owner's user id. */
  created_by: string;
  created_at: string;
  expires_at: number;
  used_at: string | null;
}

/** A fixed window of failed attempts of one subject (an email's hash, or `*` for all). */
export interface FailureWindow {
  failures: number;
  /** Epoch milliseconds. */
  window_start: number;
}

export interface AccountStore {
  /** False when a user has that email already (nothing written). */
  insertUser(user: User): Promise<boolean>;
  getUser(id: string): Promise<User | undefined>;
  userByEmail(email: string): Promise<User | undefined>;
  /** A team's users, oldest first. */
  listUsers(teamId: string): Promise<User[]>;
  /** Replaces the hash; `resetAt`: an operator's reset, recorded (null for the user's own change). */
  setPassword(userId: string, passwordHash: string, resetAt: string | null): Promise<boolean>;
  setRole(userId: string, role: Role): Promise<boolean>;
  /** Deletes the user and their tokens; false when there is no such user. */
  deleteUser(userId: string): Promise<boolean>;

  insertToken(token: AccessToken): Promise<void>;
  tokenByHash(hash: string): Promise<AccessToken | undefined>;
  getToken(id: string): Promise<AccessToken | undefined>;
  /** A user's tokens that are neither revoked nor expired at `now`, newest first. */
  liveTokens(userId: string, now: number): Promise<AccessToken[]>;
  /** False when there is no such token or it was revoked already. */
  revokeToken(id: string, at: string): Promise<boolean>;
  /** Revokes every token of the user; how many were live. */
  revokeUserTokens(userId: string, at: string): Promise<number>;
  /** Forgets tokens that expired before `now`. */
  deleteExpiredTokens(now: number): Promise<number>;

  insertInvite(invite: Invite): Promise<void>;
  inviteByHash(hash: string): Promise<Invite | undefined>;
  /** Marks the invite used; false when it was used already (two sign-ups racing: one wins). */
  useInvite(id: string, at: string): Promise<boolean>;

  /** Undefined when there is no such team. */
  cloudEnabled(teamId: string): Promise<boolean | undefined>;
  setCloudEnabled(teamId: string, enabled: boolean): Promise<boolean>;

  /** The subject's window, when it started after `since`. */
  failures(subject: string, since: number): Promise<FailureWindow | undefined>;
  /** Counts one failure at `now`, in a new window when the current one started at or before `since`. */
  recordFailure(subject: string, now: number, since: number): Promise<FailureWindow>;
  clearFailures(subject: string): Promise<void>;
}
