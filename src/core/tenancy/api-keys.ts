// Hosted API keys: minted, hashed and named here, for the CLI (`relay cloud keys …`) and the API
// (`/api/keys`) alike. A key is `rk_live_` + 43 base64url characters (32 random bytes), shown once;
// the store keeps only its SHA-256. A fast hash is enough because the secret is random with 256 bits
// of entropy: a slow password hash (bcrypt, scrypt) defends low-entropy secrets against guessing,
// which is hopeless here anyway, and would cost every request its work factor.
import { sha256Hex } from "../../runtime/hash.ts";
import { CoreError } from "../errors.ts";
import { prefixedId, secretToken } from "../ids.ts";
import type { ApiKey, ApiKeyStore, KeyType } from "../../store/keys/types.ts";
import type { Team, TeamStore } from "../../store/teams/types.ts";
import type { PlanName } from "./plans.ts";

export const KEY_PREFIX = "rk_live_";
/** Characters of the secret kept for display after the prefix (24 of its 256 bits). */
const SHOWN = 4;

/** Hex SHA-256 of a key as presented. */
export const hashKey = (secret: string): string => sha256Hex(secret);

/** A key as created: the stored record, and the secret that is shown once and then forgotten. */
export interface MintedKey {
  key: ApiKey;
  secret: string;
}

export async function createKey(keys: ApiKeyStore, teamId: string, type: KeyType, name: string): Promise<MintedKey> {
  const secret = KEY_PREFIX + secretToken(32);
  const key: ApiKey = {
    id: prefixedId("key"),
    team_id: teamId,
    type,
    name,
    prefix: secret.slice(0, KEY_PREFIX.length + SHOWN),
    hash: hashKey(secret),
    created_at: new Date().toISOString(),
    revoked_at: null,
  };
  await keys.insertKey(key);
  return { key, secret };
}

/** A team and its first (standard) key. */
export async function createTeam(store: { teams: TeamStore; apiKeys: ApiKeyStore }, name: string, plan: PlanName): Promise<{ team: Team } & MintedKey> {
  const team: Team = { id: prefixedId("team"), name, plan, created_at: new Date().toISOString() };
  await store.teams.insertTeam(team);
  return { team, ...(await createKey(store.apiKeys, team.id, "standard", "default")) };
}

/**
 * A new key of the same team and type as `old`, which stays valid: clients move to the new one,
 * then the old one is revoked, so no request fails in between.
 */
export async function rotateKey(keys: ApiKeyStore, old: ApiKey): Promise<MintedKey> {
  if (old.revoked_at !== null) throw new CoreError(409, "key_revoked", `key ${old.id} is revoked; create a new key instead`);
  return createKey(keys, old.team_id, old.type, `${old.name} (rotated)`);
}

/** A key as listed and answered: everything but the hash, which nothing outside the store needs. */
export const publicKey = ({ hash: _hash, ...rest }: ApiKey): Omit<ApiKey, "hash"> => rest;

/** `read-only` (the CLI's spelling) or `read_only` (the API's) as a key type. */
export function keyTypeOf(v: unknown): KeyType | undefined {
  return v === "standard" ? "standard" : v === "read_only" || v === "read-only" ? "read_only" : undefined;
}
