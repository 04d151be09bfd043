// A per-key memo of an async read, kept for `ttlMs` on a clock: for reads that every request of a
// team would otherwise make (its webhook endpoints, its stored provider keys) and whose changes may
// reach other instances a few seconds late. A change through this instance calls forget(); a failed
// read is not kept.
import type { Clock } from "./limits/clock.ts";

export class TtlCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = read();
    const entry = { at: now, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** One cache per owner (a Relay) and purpose, made on first use. */
export function cacheOf<V>(caches: WeakMap<object, TtlCache<V>>, owner: object, clock: Clock, ttlMs: number): TtlCache<V> {
  let cache = caches.get(owner);
  if (!cache) caches.set(owner, (cache = new TtlCache<V>(clock, ttlMs)));
  return cache;
}
