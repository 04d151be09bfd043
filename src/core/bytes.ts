// Byte arrays joined with the Web-standard Uint8Array alone (Buffer is Node's and Bun's).

/** The parts as one array: the part itself when there is one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const out = new Uint8Array(size);
  size = 0;
  for (const p of parts) {
    out.set(p, size);
    size += p.byteLength;
  }
  return out;
}

/** Standard base64 of the bytes (btoa: every runtime has it). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The bytes of standard or URL-safe base64, padded or not; throws on other characters. */
export const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
