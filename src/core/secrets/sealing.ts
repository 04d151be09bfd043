// Secrets kept at rest (a team's provider keys, webhook signing secrets) are sealed with AES-256-GCM
// under the master key (master-key.ts). Web Crypto only, so any runtime seals and opens them.
//
// An envelope is `v1:<key id>:<base64 of iv | ciphertext | tag>`. The key id is a fingerprint of
// the master key (an HMAC of a fixed label, not the key): opening under another master key fails at
// once with a message that says so, instead of a bare authentication failure. The associated data
// (`bound`: the row the secret belongs to, such as a team and a provider) is authenticated with the
// ciphertext, so an envelope copied into another row does not open.
import { concatBytes, fromBase64, toBase64 } from "../bytes.ts";

const VERSION = "v1";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Why an envelope did not open: sealed under another master key, altered or moved, or not an envelope at all. */
export type SealingFailure = "wrong_key" | "tampered" | "malformed";

export class SealingError extends Error {
  override name = "SealingError";
  constructor(
    readonly reason: SealingFailure,
    message: string,
  ) {
    super(message);
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Whether `value` is a sealed envelope (rather than a value stored before sealing). */
export const isSealed = (value: string): boolean => value.startsWith(`${VERSION}:`);

/** A master key, ready to seal and open. */
export class SealingKey {
  private constructor(
    private readonly key: CryptoKey,
    /** The key's fingerprint, written into each envelope; safe to log. */
    readonly id: string,
  ) {}

  static async fromBytes(raw: Uint8Array<ArrayBuffer>): Promise<SealingKey> {
    if (raw.length !== KEY_BYTES) throw new Error(`a master key is ${KEY_BYTES} bytes, not ${raw.length}`);
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    const mac = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const fingerprint = new Uint8Array(await crypto.subtle.sign("HMAC", mac, encoder.encode("relay master key id")));
    return new SealingKey(key, hex(fingerprint.subarray(0, 6)));
  }

  /** `plain` sealed for the row `bound` names. */
  async seal(plain: string, bound: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: this.associated(bound) }, this.key, encoder.encode(plain));
    return `${VERSION}:${this.id}:${toBase64(concatBytes([iv, new Uint8Array(sealed)]))}`;
  }

  /** The secret sealed in `envelope` for the row `bound`; a SealingError saying why when it does not open. */
  async open(envelope: string, bound: string): Promise<string> {
    const [version, keyId, data, ...rest] = envelope.split(":");
    if (version !== VERSION || !keyId || !data || rest.length > 0) throw new SealingError("malformed", `not a ${VERSION} sealed value`);
    if (keyId !== this.id) {
      throw new SealingError("wrong_key", `sealed under master key ${keyId}, but the master key in use is ${this.id}: RELAY_MASTER_KEY (or the key file) is not the one it was stored with`);
    }
    const bytes = decoded(data);
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SealingError("malformed", "the sealed value is too short");
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: this.associated(bound) }, this.key, bytes.subarray(IV_BYTES));
    } catch {
      throw new SealingError("tampered", "the sealed value was altered, or belongs to another row");
    }
    return decoder.decode(plain);
  }

  private associated(bound: string): Uint8Array<ArrayBuffer> {
    return encoder.encode(`${VERSION}:${this.id}:${bound}`);
  }
}

function decoded(data: string): Uint8Array<ArrayBuffer> {
  try {
    return fromBase64(data);
  } catch {
    throw new SealingError("malformed", "the sealed value is not base64");
  }
}
