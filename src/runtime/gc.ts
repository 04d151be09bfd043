// Runtime seam: a full, synchronous garbage collection where the runtime lets
// code ask for one (Bun always; Node and Deno when started with --expose-gc),
// nothing elsewhere.

// Detected once, at load (a runtime exposes gc at start or never).
const runtime = globalThis as { Bun?: { gc(force: boolean): void }; gc?: () => void };
const bun = runtime.Bun;
const exposed = typeof runtime.gc === "function" ? runtime.gc : undefined;

export function collectGarbage(): void {
  if (bun) bun.gc(true);
  else exposed?.();
}
