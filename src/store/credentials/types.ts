// A hosted team's stored provider keys (issue 38 item 2, src/core/tenancy/credentials.ts): one per
// team and provider, sealed under the master key (src/core/secrets/sealing.ts); the store never
// holds a key in clear, only its last characters to tell keys apart.

export interface StoredCredential {
  team_id: string;
  /** A loaded provider's name (`openai`, `anthropic`, …). */
  provider: string;
  /** The key sealed for this team and provider (`v1:<key id>:…`). */
  ciphertext: string;
  /** The key's last characters, shown masked; empty for a key too short to show any. */
  suffix: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601 of the last replacement; null until the key is first replaced. */
  rotated_at: string | null;
}

export interface CredentialStore {
  /** Stores the team's key for the provider, replacing one there (rotated_at set, created_at kept); the row as stored. */
  putCredential(c: Omit<StoredCredential, "rotated_at">): Promise<StoredCredential>;
  getCredential(teamId: string, provider: string): Promise<StoredCredential | undefined>;
  /** A team's keys, by provider. */
  listCredentials(teamId: string): Promise<StoredCredential[]>;
  /** False when the team had no key for the provider. */
  deleteCredential(teamId: string, provider: string): Promise<boolean>;
}
