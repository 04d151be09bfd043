// The secrets this process knows, for scrubbing (scrub.ts): every value that a
// loaded configuration or the environment holds under a secret-looking name (the
// rule redact.ts masks fields by: providers.*.apiKey, adminToken,
// <PROVIDER>_API_KEY, RELAY_ADMIN_TOKEN, and settings added later), and every
// password in a URL among them (postgresUrl, a base URL's userinfo). One list per
// process, like a CI runner's masked values: the logger, the router and the CLI
// all scrub with it, and a key replaced by a reload stays masked.
import { isSecretName } from "../../config/redact.ts";
import { MIN_SECRET_LENGTH, SecretValues, scrubText } from "./scrub.ts";

type Env = Record<string, string | undefined>;

/** Values kept at most, the least recently loaded dropped first: a bound for processes that load many configurations (tests). */
const MAX_VALUES = 256;

/** In insertion order: the least recently loaded first. */
const values = new Set<string>();
let matcher = new SecretValues([]);

/** Learns the secrets of a configuration just loaded and of its environment; the matcher is rebuilt only when one is new. */
export function rememberSecrets(config: unknown, env: Env): void {
  const found: string[] = [];
  collect(config, "", found);
  for (const name of Object.keys(env)) {
    const v = env[name];
    if (!v) continue;
    if (isSecretName(name)) found.push(v);
    urlSecret(v, found);
  }
  let changed = false;
  for (const v of found) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    changed ||= !values.has(v);
    values.delete(v);
    values.add(v);
  }
  for (const oldest of values) {
    if (values.size <= MAX_VALUES) break;
    values.delete(oldest);
    changed = true;
  }
  if (changed) matcher = new SecretValues(values);
}

/** `text` without any known secret, the request's own `clientCredential`, or anything shaped like a vendor key. */
export function scrubSecrets(text: string, clientCredential?: string): string {
  return scrubText(text, matcher, clientCredential);
}

function collect(value: unknown, key: string, out: string[]): void {
  if (typeof value === "string") {
    if (isSecretName(key)) out.push(value);
    urlSecret(value, out);
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, key, out);
  } else if (value !== null && typeof value === "object") {
    for (const k of Object.keys(value)) collect((value as Record<string, unknown>)[k], k, out);
  }
}

/** The password of a URL with userinfo. */
function urlSecret(text: string, out: string[]): void {
  if (!text.includes("@") || !text.includes("://")) return;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return;
  }
  const secret = url.password;
  if (!secret) return;
  out.push(secret);
  const decoded = safeDecode(secret);
  if (decoded !== secret) out.push(decoded);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
