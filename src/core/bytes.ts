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
