import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { calendarWindowsAt } from "../../src/core/limits/budget.ts";
import { MemoryBudgetGuard } from "../../src/core/limits/budget-memory.ts";
import type { BudgetSpend } from "../../src/store/budgets/types.ts";
import { budgetGuardBehaviour } from "./budget-suite.ts";

/** Minimal BudgetSpend; async like the real one, so guards see the same interleavings. */
class MapBudgetSpend implements BudgetSpend {
  readonly data = new Map<string, number>();
  async spent(key: string): Promise<number> {
    return this.data.get(key) ?? 0;
  }
  async add(key: string, delta: number): Promise<number> {
    const next = (this.data.get(key) ?? 0) + delta;
    this.data.set(key, next);
    return next;
  }
}

budgetGuardBehaviour(
  "in-memory",
  () => {
    const spend = new MapBudgetSpend();
    return { open: (clock, limits) => new MemoryBudgetGuard({ spend, clock, limits }) };
  },
  200,
);

describe("in-memory budget persistence format", () => {
  test("spend is stored as integer nano-USD under the calendar window keys", async () => {
    const spend = new MapBudgetSpend();
    const guard = new MemoryBudgetGuard({ spend, clock: new ManualClock(Date.parse("2026-11-22T10:30:00Z")) });
    const r = await guard.reserve(0.5);
    if (r.refused) throw new Error("unexpected refusal");
    await guard.settle(r, 0.25);
    // Saved in batches, not per request: nothing reaches the store until the save.
    expect(spend.data.size).toBe(0);
    await guard.flush();
    expect(Object.fromEntries(spend.data)).toEqual({
      "spend:hour:2026-11-22T10": 250_000_000,
      "spend:day:2026-11-22": 250_000_000,
    });
  });

  test("calendar windows are UTC hours and days", () => {
    const w = calendarWindowsAt(Date.parse("2026-12-31T23:59:59.999Z"));
    expect(w.hour).toEqual({ spendKey: "spend:hour:2026-12-31T23", label: "2026-12-31T23", endMs: Date.parse("2027-01-01T00:00:00Z") });
    expect(w.day).toEqual({ spendKey: "spend:day:2026-12-31", label: "2026-12-31", endMs: Date.parse("2027-01-01T00:00:00Z") });
  });
});
