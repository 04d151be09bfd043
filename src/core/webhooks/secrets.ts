// Webhook signing secrets at rest: an HMAC key cannot be kept as a hash, so it is sealed under the
// master key for its endpoint (src/core/secrets/sealing.ts) and opened when a delivery is signed.
// Rows written before sealing hold the plain `whsec_…` secret: they are still read as they are, and
// sealPlainSecrets (run as the dispatcher starts) seals them where they stand, one compare-and-set
// per column, so a rotation running meanwhile keeps its own value.
import type { Logger } from "../log.ts";
import { masterKey } from "../secrets/master-key.ts";
import { isSealed, type SealingKey } from "../secrets/sealing.ts";
import type { WebhookEndpoint, WebhookStore } from "../../store/webhooks/types.ts";

type Env = Record<string, string | undefined>;

/** What a sealed secret is bound to: its endpoint (a rotation moves it to the previous-secret column of the same row). */
const boundTo = (endpointId: string) => `webhook_endpoints:${endpointId}`;

export const sealSecret = (key: SealingKey, endpointId: string, secret: string): Promise<string> => key.seal(secret, boundTo(endpointId));

/** The secret as stored, opened; a plain one (from before sealing) as it is, without needing the master key. */
export async function openSecret(env: Env, endpointId: string, stored: string): Promise<string> {
  return isSealed(stored) ? (await masterKey(env)).open(stored, boundTo(endpointId)) : stored;
}

/** The secrets a delivery made at `now` is signed with: the endpoint's, and the one a rotation replaced while it still overlaps. */
export async function signingSecrets(env: Env, endpoint: WebhookEndpoint, now: number): Promise<string[]> {
  const stored = [endpoint.secret];
  if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > now) stored.push(endpoint.previous_secret);
  return Promise.all(stored.map((s) => openSecret(env, endpoint.id, s)));
}

/** Seals the secrets stored plain; returns how many. Without a usable master key they stay plain (and usable), and that is logged. */
export async function sealPlainSecrets(deps: { readonly env: Env; readonly log: Logger; readonly store: { readonly webhooks: WebhookStore } }): Promise<number> {
  const webhooks = deps.store.webhooks;
  const plain = await webhooks.endpointsWithPlainSecrets();
  if (plain.length === 0) return 0;
  let key: SealingKey;
  try {
    key = await masterKey(deps.env);
  } catch (e) {
    deps.log.error("webhook secrets stay unsealed: the master key is not usable", { endpoints: plain.length, error: (e as Error).message });
    return 0;
  }
  let sealed = 0;
  for (const endpoint of plain) {
    for (const column of ["secret", "previous_secret"] as const) {
      const value = endpoint[column];
      if (value && !isSealed(value) && (await webhooks.replaceSecret(endpoint.id, column, value, await sealSecret(key, endpoint.id, value)))) sealed++;
    }
  }
  return sealed;
}
