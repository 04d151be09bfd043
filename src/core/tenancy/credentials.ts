// A hosted team's stored provider keys (issue 38 item 2; README "Provider credentials"): checked,
// sealed under the master key for their row (team and provider: src/core/secrets/sealing.ts) and
// stored; shown only masked; and opened for the team's own calls (/api/relay, and whatever else
// routes for a team: Caller.credentials), where they are used in place of the server's keys for
// their providers. A key that cannot be opened is Relay's fault, logged and answered as a 500 that
// says why; it is never replaced by garbage or by nothing.
import type { ProviderPlugin } from "../../plugin/api.ts";
import type { Registry } from "../../plugin/registry.ts";
import type { CredentialStore, StoredCredential } from "../../store/credentials/types.ts";
import { CoreError } from "../errors.ts";
import type { Clock } from "../limits/clock.ts";
import type { Logger } from "../log.ts";
import { invalid, text } from "../registry/fields.ts";
import { needsKey } from "../router/credentials.ts";
import { requireMasterKey } from "../secrets/master-key.ts";
import { SealingError } from "../secrets/sealing.ts";
import { cacheOf, TtlCache } from "../ttl-cache.ts";

export interface CredentialDeps {
  readonly env: Record<string, string | undefined>;
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly store: { readonly credentials: CredentialStore };
}

const KEY_MIN = 8;
const KEY_MAX = 4096;
/** Characters of a key kept in clear to tell keys apart, and only for keys at least SHOWN_FROM long. */
const SHOWN = 4;
const SHOWN_FROM = 16;
const WHITESPACE = /\s/;

/** What a sealed key is bound to: its row, so it opens for no other team or provider. */
const boundTo = (teamId: string, provider: string) => `provider_credentials:${teamId}:${provider}`;

/** A stored key as answered: never the key, only its last characters. */
export interface CredentialView {
  provider: string;
  masked_key: string;
  created_at: string;
  rotated_at: string | null;
}

export const credentialView = (c: StoredCredential): CredentialView => ({
  provider: c.provider,
  masked_key: `…${c.suffix}`,
  created_at: c.created_at,
  rotated_at: c.rotated_at,
});

export interface CredentialFields {
  provider: ProviderPlugin;
  apiKey: string;
}

/** The body of PUT /api/v1/credentials; a 400 naming the wrong field (never echoing a key). */
export function credentialFields(registry: Registry, body: Record<string, unknown>): CredentialFields {
  const name = text(body.provider, "provider", 100);
  const provider = registry.providers.get(name);
  if (!provider || !needsKey(provider)) {
    const keyed = [...registry.providers.values()].filter(needsKey).map((p) => p.name).sort();
    throw invalid("provider", body.provider, "string", `must be a loaded provider that takes an API key: ${keyed.join(", ")}`);
  }
  const apiKey = body.api_key;
  if (typeof apiKey !== "string" || apiKey.length < KEY_MIN || apiKey.length > KEY_MAX || WHITESPACE.test(apiKey)) {
    throw invalid("api_key", undefined, "string", `must be a key of ${KEY_MIN} to ${KEY_MAX} characters without spaces`);
  }
  return { provider, apiKey };
}

/** Stores the team's key for the provider (replacing one: rotated_at is set); the stored key as answered. */
export async function putCredential(deps: CredentialDeps, teamId: string, { provider, apiKey }: CredentialFields): Promise<CredentialView> {
  const key = await requireMasterKey(deps);
  const row = await deps.store.credentials.putCredential({
    team_id: teamId,
    provider: provider.name,
    ciphertext: await key.seal(apiKey, boundTo(teamId, provider.name)),
    suffix: apiKey.length >= SHOWN_FROM ? apiKey.slice(-SHOWN) : "",
    created_at: new Date(deps.clock.now()).toISOString(),
  });
  forgetCredentials(deps, teamId);
  return credentialView(row);
}

/** Removes the team's key for `provider`; the removed key as answered, undefined when there was none. */
export async function deleteCredential(deps: CredentialDeps, teamId: string, provider: string): Promise<CredentialView | undefined> {
  const stored = await deps.store.credentials.getCredential(teamId, provider);
  if (!stored || !(await deps.store.credentials.deleteCredential(teamId, stored.provider))) return undefined;
  forgetCredentials(deps, teamId);
  return credentialView(stored);
}

/**
 * The team's keys in clear, by provider, for routing its calls (Caller.credentials); undefined when
 * it stored none, so a team without any never needs the master key.
 */
export const teamCredentials = (deps: CredentialDeps, teamId: string): Promise<Record<string, string> | undefined> =>
  cacheOf(openedCaches, deps, deps.clock, OPENED_TTL_MS).get(teamId, () => openTeamCredentials(deps, teamId));

/**
 * A team's opened keys are kept OPENED_TTL_MS: every relayed call of the team needs them, and a store
 * read plus a decryption per call cost the hosted path more than the rest of its guard. A change
 * through this instance is seen at once (forgetCredentials); one through another instance within the TTL.
 */
const OPENED_TTL_MS = 5_000;
const openedCaches = new WeakMap<object, TtlCache<Record<string, string> | undefined>>();

/** Drops the team's opened keys from this instance's cache: call after storing or deleting one. */
export function forgetCredentials(deps: object, teamId: string): void {
  openedCaches.get(deps)?.forget(teamId);
}

async function openTeamCredentials(deps: CredentialDeps, teamId: string): Promise<Record<string, string> | undefined> {
  const rows = await deps.store.credentials.listCredentials(teamId);
  if (rows.length === 0) return undefined;
  const key = await requireMasterKey(deps);
  const keys: Record<string, string> = {};
  for (const row of rows) {
    try {
      keys[row.provider] = await key.open(row.ciphertext, boundTo(teamId, row.provider));
    } catch (e) {
      if (!(e instanceof SealingError)) throw e;
      deps.log.error("a stored provider credential cannot be opened", { team: teamId, provider: row.provider, reason: e.reason, error: e.message });
      const why = e.reason === "wrong_key" ? "the server's master key is not the one it was stored with" : "the stored value was altered";
      throw new CoreError(500, "credential_unreadable", `The stored ${row.provider} key of this team cannot be decrypted: ${why}. The operator must restore the master key, or the team store the key again.`);
    }
  }
  return keys;
}
