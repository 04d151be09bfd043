// The master key that seals secrets at rest (sealing.ts). RELAY_MASTER_KEY when set: 32 bytes as 64
// hex digits or as base64 (`openssl rand -base64 32`). Otherwise the key file $RELAY_HOME/master-key,
// made on first need (32 random bytes, base64, mode 0600) and refused when others may read it
// (src/runtime/key-file.ts). Instances that share a database must share the key: set
// RELAY_MASTER_KEY on each.
//
// Rotation is not built: a secret opens only under the key it was sealed with. Replacing the key
// makes every stored credential and webhook secret fail to open (loudly, naming both key ids) until
// the old key is back; nothing re-encrypts them under a new key yet.
import { fromBase64, toBase64 } from "../bytes.ts";
import { CoreError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { masterKeyFile, readKeyFile } from "../../runtime/key-file.ts";
import { SealingKey } from "./sealing.ts";

type Env = Record<string, string | undefined>;

export const MASTER_KEY_ENV = "RELAY_MASTER_KEY";
const KEY_BYTES = 32;
const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/;

/** The master key is missing, malformed or its file unsafe: nothing sealed can be stored or read. */
export class MasterKeyError extends Error {
  override name = "MasterKeyError";
}

/** The 32 bytes of a master key written as hex or base64; `source` names where it came from in the error. */
export function parseMasterKey(text: string, source: string): Uint8Array<ArrayBuffer> {
  const t = text.trim();
  if (HEX.test(t)) return Uint8Array.from(t.match(/../g)!, (h) => Number.parseInt(h, 16));
  if (BASE64.test(t)) return fromBase64(t);
  throw new MasterKeyError(`${source} must be ${KEY_BYTES} bytes written as 64 hex digits or as base64 (make one with: openssl rand -base64 32); it holds ${t.length} characters`);
}

const loaded = new WeakMap<Env, Promise<SealingKey>>();

/** The master key of the Relay whose environment is `env`, loaded (or its file made) on first use. */
export function masterKey(env: Env): Promise<SealingKey> {
  let key = loaded.get(env);
  if (!key) {
    key = load(env);
    loaded.set(env, key);
    // A failure is not kept: the operator may fix the file or the variable without a restart.
    key.catch(() => loaded.delete(env));
  }
  return key;
}

/**
 * The master key for a request that needs it: an unusable one is logged (its reason names files and
 * variables, which the answer does not) and refused as Relay's own fault, a 500 that says what failed.
 */
export async function requireMasterKey(deps: { readonly env: Env; readonly log: Logger }): Promise<SealingKey> {
  try {
    return await masterKey(deps.env);
  } catch (e) {
    if (!(e instanceof MasterKeyError)) throw e;
    deps.log.error("the master key is not usable", { error: e.message });
    throw new CoreError(500, "master_key_unavailable", "The server's master key is not usable, so stored secrets can be neither stored nor read; the server's log says why.");
  }
}

async function load(env: Env): Promise<SealingKey> {
  const set = env[MASTER_KEY_ENV];
  if (set) return SealingKey.fromBytes(parseMasterKey(set, MASTER_KEY_ENV));
  const file = masterKeyFile(env);
  let text: string;
  try {
    text = readKeyFile(file, () => `${toBase64(crypto.getRandomValues(new Uint8Array(KEY_BYTES)))}\n`);
  } catch (e) {
    throw new MasterKeyError(`${(e as Error).message} (or set ${MASTER_KEY_ENV})`);
  }
  return SealingKey.fromBytes(parseMasterKey(text, `the master key file ${file}`));
}
