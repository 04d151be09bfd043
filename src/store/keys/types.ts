// API keys of the hosted API (spec §2.8, §5.1): several per team, so a rotation has no gap. Only a
// hash of the secret is kept (src/core/tenancy/api-keys.ts says why SHA-256 suffices).

import type { Team } from "../teams/types.ts";

export type KeyType = "standard" | "read_only";

export interface ApiKey {
  /** `key_…`: how a key is named in lists, rotation and revocation; not the secret. */
  id: string;
  team_id: string;
  type: KeyType;
  name: string;
  /** The secret's first characters (`rk_live_ab12`), to tell keys apart in a list; not enough to use. */
  prefix: string;
  /** Hex SHA-256 of the whole secret key: what a request's `x-api-key` is looked up by. */
  hash: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601 once revoked; a revoked key authenticates nothing. */
  revoked_at: string | null;
}

export interface ApiKeyStore {
  insertKey(key: ApiKey): Promise<void>;
  getKey(id: string): Promise<ApiKey | undefined>;
  /** The key, revoked or not, whose secret hashes to `hash`, with its team (undefined when gone) in the same read: the hosted guard's per-request lookup. */
  keyAndTeamByHash(hash: string): Promise<{ key: ApiKey; team: Team | undefined } | undefined>;
  /** A team's keys, revoked ones included, oldest first. */
  listKeys(teamId: string): Promise<ApiKey[]>;
  /** Marks the key revoked at `at`; false when there is no such key or it was revoked already. */
  revokeKey(id: string, at: string): Promise<boolean>;
}
