// Runtime seam: a full, synchronous garbage collection. A port to another
// runtime calls its own (or does nothing, where none can be asked for).

export function collectGarbage(): void {
  Bun.gc(true);
}
