// Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): an endpoint's secret is
// `whsec_` + base64 of 32 random bytes; a delivery is signed as HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${body}`, sent as `v1,` + base64 in webhook-signature, with one
// signature per secret in force, space-separated, so a rotation has no gap. Web Crypto only, so any
// runtime signs; the `standardwebhooks` library verifies these in tests/cloud/webhooks.test.ts.

import { fromBase64, toBase64 } from "../bytes.ts";

const PREFIX = "whsec_";
const SECRET_BYTES = 32;
const encoder = new TextEncoder();

/** A new endpoint secret. */
export const newSecret = (): string => PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));

/** `v1,<base64 HMAC-SHA256>` of one delivery attempt under `secret`. */
export async function sign(secret: string, id: string, timestampSec: number, body: string): Promise<string> {
  const raw = fromBase64(secret.slice(PREFIX.length));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestampSec}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The three Standard Webhooks headers of one attempt, signed with each of `secrets`. */
export async function webhookHeaders(secrets: string[], id: string, timestampSec: number, body: string): Promise<Record<string, string>> {
  const signatures = await Promise.all(secrets.map((s) => sign(s, id, timestampSec, body)));
  return { "webhook-id": id, "webhook-timestamp": String(timestampSec), "webhook-signature": signatures.join(" ") };
}

/** Whether `signature` (base64) is the HMAC-SHA256 of a delivery under `secret`; Web Crypto compares in constant time. */
export async function verify(secret: string, id: string, timestampSec: string, body: string, signature: string): Promise<boolean> {
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = fromBase64(signature);
  } catch {
    return false;
  }
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.slice(PREFIX.length)), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", key, mac, encoder.encode(`${id}.${timestampSec}.${body}`));
}
