// Runtime seam: a synchronous SHA-256. node:crypto's createHash is native in Bun, Node and Deno alike,
// and synchronous, where WebCrypto's digest hops to another thread and back: on the hosted API's
// key check, paid by every request, that hop cost more than the hash.
import { createHash } from "node:crypto";

/** Hex SHA-256 of `text` (UTF-8). */
export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");
