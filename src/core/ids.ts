// Every id Relay makes, from one source of randomness: Web Crypto only, so the core that uses it runs
// on Bun, Node and Deno alike. Ids are Stripe-style where Relay picks the format (`prefix_` + random
// characters) and keep the vendor's format where a client expects one (`chatcmpl-…`, `msg_…`).

const BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolAt = 0;

/**
 * `n` random characters of `alphabet`, from a pool of random bytes refilled 4 KB at a time (one
 * getRandomValues call per ~200 request ids instead of one per id). Bytes at or over the largest
 * multiple of the alphabet's size are skipped, so every character is equally likely.
 */
function randomChars(n: number, alphabet: string): string {
  const size = alphabet.length;
  const limit = 256 - (256 % size);
  let s = "";
  for (let i = 0; i < n; ) {
    if (poolAt === pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
      poolAt = 0;
    }
    const b = pool[poolAt++]!;
    if (b < limit) {
      s += alphabet[b % size];
      i++;
    }
  }
  return s;
}

/** `n` random lowercase hex characters (4 bits each). */
export const randomHex = (n: number): string => randomChars(n, HEX);

/** `n` random base-36 characters, `0-9a-z` (about 5.2 bits each). */
export const randomBase36 = (n: number): string => randomChars(n, BASE36);

/** A Stripe-style id, `prefix_` + `chars` random hex characters, e.g. `call_1f0c…` (24 by default: 96 bits). */
export const prefixedId = (prefix: string, chars = 24): string => `${prefix}_${randomHex(chars)}`;

/**
 * A secret of `bytes` random bytes as unpadded base64url (32 bytes: 43 characters). Read straight
 * from getRandomValues, not the shared pool, so a secret's bytes are never kept for later ids.
 */
export function secretToken(bytes = 32): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  let binary = "";
  for (const b of raw) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Ids `prefix1`, `prefix2`, … unique within one generator: for ids that only need to be unique to their issuer. */
export function sequentialIds(prefix: string): () => string {
  let seq = 0;
  return () => `${prefix}${++seq}`;
}

let idMs = 0;
let idPrefix = "";
let idSeq = 0;

/**
 * `req_` + 9 base-36 characters of `now` (ms) + 3 of a counter within that millisecond + 11 random
 * ones (57 bits). Time first keeps the run log's primary-key index append-only: random keys scatter
 * every insert across the whole b-tree (measured: 2-3x the cost per row). The counter keeps one
 * process's ids in arrival order within a millisecond, so the run log's newest-first order (its time,
 * then its id) is the order requests arrived.
 */
export function newRequestId(now = Date.now()): string {
  if (now !== idMs) {
    idMs = now;
    idPrefix = `req_${now.toString(36).padStart(9, "0")}`;
    idSeq = 0;
  }
  return idPrefix + (idSeq++).toString(36).padStart(3, "0") + randomBase36(11);
}
