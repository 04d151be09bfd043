// Budget spend kept in this process alone: the counters of a router that has no store
// (createRouter, src/portable.ts). Its budgets start from nothing at each start.
import type { BudgetSpend } from "../../store/budgets/types.ts";

export class MemoryBudgetSpend implements BudgetSpend {
  private readonly counters = new Map<string, number>();

  spent(key: string): Promise<number> {
    return Promise.resolve(this.counters.get(key) ?? 0);
  }

  add(key: string, delta: number): Promise<number> {
    const total = (this.counters.get(key) ?? 0) + delta;
    this.counters.set(key, total);
    return Promise.resolve(total);
  }
}
