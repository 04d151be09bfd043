// Access tokens of signed-in users (issue 38 item 1): `rat_` + 43 base64url characters (32 random
// bytes), shown once; the store keeps their SHA-256 (a fast hash suffices for a random secret, as
// for API keys: api-keys.ts), an expiry and a revocation. Sent as `Authorization: Bearer rat_…` by
// the SDK (GlobalConfig.cloud.accessToken) and any client; each request re-reads the token, its
// user and team, so a revocation or a removed user holds at once.
import { CoreError } from "../errors.ts";
import { prefixedId, secretToken } from "../ids.ts";
import type { Team, TeamStore } from "../../store/teams/types.ts";
import type { AccessToken, AccountStore, User } from "../../store/users/types.ts";
import { hashKey } from "./api-keys.ts";

export const TOKEN_PREFIX = "rat_";
const SHOWN = 4;

export interface MintedToken {
  token: AccessToken;
  secret: string;
}

export async function mintToken(accounts: AccountStore, user: User, name: string, now: number, ttlMs: number): Promise<MintedToken> {
  const secret = TOKEN_PREFIX + secretToken(32);
  const token: AccessToken = {
    id: prefixedId("tok"),
    user_id: user.id,
    team_id: user.team_id,
    hash: await hashKey(secret),
    prefix: secret.slice(0, TOKEN_PREFIX.length + SHOWN),
    name,
    created_at: new Date(now).toISOString(),
    expires_at: now + ttlMs,
    revoked_at: null,
  };
  await accounts.insertToken(token);
  return { token, secret };
}

export interface TokenAuth {
  team: Team;
  user: User;
  token: AccessToken;
}

const invalidToken = (why: string) => new CoreError(401, "invalid_access_token", `the access token ${why}; sign in again`);

type Stores = { accounts: AccountStore; teams: TeamStore };

/** The user, team and token of a bearer secret: 401 when unknown, expired, revoked, or its user or team is gone. */
export const tokenAuth = async (store: Stores, secret: string, now: number): Promise<TokenAuth> => live(store, await store.accounts.tokenByHash(await hashKey(secret)), now);

/** The same for the token `id` (a console session signed in with a password keeps its token's id). */
export const tokenAuthById = async (store: Stores, id: string, now: number): Promise<TokenAuth> => live(store, await store.accounts.getToken(id), now);

async function live(store: Stores, token: AccessToken | undefined, now: number): Promise<TokenAuth> {
  if (!token) throw invalidToken("is not valid");
  if (token.revoked_at !== null) throw invalidToken("was revoked");
  if (token.expires_at <= now) throw invalidToken("expired");
  const user = await store.accounts.getUser(token.user_id);
  const team = user && user.team_id === token.team_id ? await store.teams.getTeam(user.team_id) : undefined;
  if (!user || !team) throw invalidToken("belongs to a user or team that no longer exists");
  return { team, user, token };
}

/** A token as listed and answered: never its hash; expires_at as ISO 8601. */
export const publicToken = ({ hash: _hash, expires_at, ...rest }: AccessToken) => ({ ...rest, expires_at: new Date(expires_at).toISOString() });

/** A user as answered: never the password hash. */
export const publicUser = ({ password_hash: _hash, ...rest }: User) => rest;
