// The budgets' spend so far: one counter per budget window, under the window's spend key
// (keys and units, nano-USD, are src/core/limits/budget.ts's). The in-memory budget guard loads a
// window's counter once and adds its spend in batches; the Redis guard keeps its own counters.

export interface BudgetSpend {
  /** What the window `key` has spent; 0 before anything was added. */
  spent(key: string): Promise<number>;
  /** Atomically adds `delta` to the window `key`'s spend; returns the new total. */
  add(key: string, delta: number): Promise<number>;
}
