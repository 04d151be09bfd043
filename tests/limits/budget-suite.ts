// Behaviour every BudgetGuard must show; run against each implementation.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ManualClock } from "../../src/core/limits/clock.ts";
import type { BudgetGuard, BudgetLimits, BudgetRefusal, BudgetReservation } from "../../src/core/limits/budget.ts";

/** Fresh backing storage; every guard it opens shares that storage, like a restarted or second instance. */
export interface BudgetStorage {
  open(clock: ManualClock, limits: BudgetLimits): BudgetGuard;
}

const T10_30 = Date.parse("2026-11-22T10:30:00Z");

function reserved(r: BudgetReservation | BudgetRefusal): BudgetReservation {
  if (r.refused) throw new Error(`expected a reservation, got refusal of the ${r.window} window`);
  return r;
}

export function budgetGuardBehaviour(name: string, newStorage: () => BudgetStorage, propertyRuns: number): void {
  describe(`${name} budget guard`, () => {
    test("reserve counts against the budget until settled; settle records the actual cost", async () => {
      const clock = new ManualClock(T10_30);
      const guard = newStorage().open(clock, { hourlyUsd: 1 });
      const r = reserved(await guard.reserve(0.4));
      expect(r).toMatchObject({ estimateUsd: 0.4, hour: "2026-11-22T10", day: "2026-11-22" });
      expect((await guard.status()).hourly).toEqual({ window: "2026-11-22T10", limitUsd: 1, spentUsd: 0, reservedUsd: 0.4, resetsInSec: 1800 });
      await guard.settle(r, 0.3);
      const s = await guard.status();
      expect(s.hourly).toMatchObject({ spentUsd: 0.3, reservedUsd: 0 });
      expect(s.daily).toEqual({ window: "2026-11-22", spentUsd: 0.3, reservedUsd: 0, resetsInSec: 13.5 * 3600 });
    });

    test("release frees a reservation without spending", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: 1 });
      const r = reserved(await guard.reserve(0.9));
      expect((await guard.reserve(0.2)).refused).toBe(true);
      await guard.release(r);
      expect((await guard.status()).hourly).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
      expect((await guard.reserve(0.2)).refused).toBe(false);
    });

    test("refuses when spent + reserved + estimate exceeds the limit, naming the window", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: 1 });
      reserved(await guard.reserve(0.6));
      expect(await guard.reserve(0.6)).toEqual({ refused: true, window: "hourly", limitUsd: 1, spentUsd: 0, retryAfterSec: 1800 });
      // Exactly reaching the limit is allowed.
      expect((await guard.reserve(0.4)).refused).toBe(false);
    });

    test("hourly refusal lifts at the hour boundary; daily refusal waits for UTC midnight", async () => {
      const clock = new ManualClock(T10_30);
      const guard = newStorage().open(clock, { hourlyUsd: 1, dailyUsd: 1.5 });
      await guard.settle(reserved(await guard.reserve(1)), 1);
      clock.set(Date.parse("2026-11-22T10:59:59.500Z"));
      expect(await guard.reserve(0.1)).toEqual({ refused: true, window: "hourly", limitUsd: 1, spentUsd: 1, retryAfterSec: 1 });
      clock.set(Date.parse("2026-11-22T11:00:00Z"));
      const r = reserved(await guard.reserve(0.5));
      expect(r.hour).toBe("2026-11-22T11");
      await guard.settle(r, 0.5);
      expect(await guard.reserve(0.1)).toEqual({ refused: true, window: "daily", limitUsd: 1.5, spentUsd: 1.5, retryAfterSec: 13 * 3600 });
      clock.set(Date.parse("2026-11-23T00:00:00Z"));
      expect((await guard.reserve(0.1)).refused).toBe(false);
    });

    test("when both windows are exhausted the daily one is reported", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: 1, dailyUsd: 1 });
      await guard.settle(reserved(await guard.reserve(1)), 1);
      expect(await guard.reserve(0.01)).toMatchObject({ refused: true, window: "daily" });
    });

    test("a cost above the estimate is still recorded in full", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: 1 });
      await guard.settle(reserved(await guard.reserve(0.1)), 0.75);
      expect((await guard.status()).hourly.spentUsd).toBe(0.75);
      expect(await guard.reserve(0.3)).toMatchObject({ refused: true, window: "hourly", spentUsd: 0.75 });
    });

    test("a reservation can be settled or released once only", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), {});
      const r = reserved(await guard.reserve(0.2));
      await guard.settle(r, 0.2);
      await expect(guard.settle(r, 0.2)).rejects.toThrow(/already settled or released/);
      await expect(guard.release(r)).rejects.toThrow(/already settled or released/);
      expect((await guard.status()).daily.spentUsd).toBe(0.2);
    });

    test("only the guard that issued a reservation settles it; a copy or another guard's is refused", async () => {
      const storage = newStorage();
      const guard = storage.open(new ManualClock(T10_30), {});
      const other = storage.open(new ManualClock(T10_30), {});
      const r = reserved(await guard.reserve(0.2));
      await expect(other.settle(r, 0.2)).rejects.toThrow(/issued by another/);
      await expect(guard.settle({ ...r }, 0.2)).rejects.toThrow(/issued by another/);
      // What a reservation shows is its public fields: the state it holds for its guard stays private.
      expect(JSON.parse(JSON.stringify(r))).toEqual({ refused: false, id: r.id, estimateUsd: 0.2, hour: "2026-11-22T10", day: "2026-11-22" });
      await guard.settle(r, 0.2);
      expect((await guard.status()).daily).toMatchObject({ spentUsd: 0.2, reservedUsd: 0 });
    });

    test("spend survives a new guard over the same storage", async () => {
      const storage = newStorage();
      const clock = new ManualClock(T10_30);
      const first = storage.open(clock, { hourlyUsd: 1 });
      await first.settle(reserved(await first.reserve(0.7)), 0.7);
      await first.flush(); // what Relay does on shutdown; the in-memory guard saves in batches
      const second = storage.open(clock, { hourlyUsd: 1 });
      expect((await second.status()).hourly.spentUsd).toBe(0.7);
      expect(await second.reserve(0.5)).toMatchObject({ refused: true, window: "hourly", spentUsd: 0.7 });
    });

    test("a settle after rollover is charged to the windows the reservation was made in", async () => {
      const storage = newStorage();
      const clock = new ManualClock(Date.parse("2026-11-22T10:59:00Z"));
      const guard = storage.open(clock, {});
      const r = reserved(await guard.reserve(0.2));
      clock.set(Date.parse("2026-11-22T11:01:00Z"));
      await guard.settle(r, 0.2);
      const now = await guard.status();
      expect(now.hourly).toMatchObject({ window: "2026-11-22T11", spentUsd: 0, reservedUsd: 0 });
      expect(now.daily.spentUsd).toBe(0.2);
      await guard.flush();
      clock.set(Date.parse("2026-11-22T10:59:30Z"));
      expect((await storage.open(clock, {}).status()).hourly).toMatchObject({ window: "2026-11-22T10", spentUsd: 0.2 });
    });

    test("limits change at runtime", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { dailyUsd: 0.1 });
      expect((await guard.reserve(0.5)).refused).toBe(true);
      guard.setLimits({ dailyUsd: 1 });
      expect((await guard.reserve(0.5)).refused).toBe(false);
      guard.setLimits({});
      expect((await guard.reserve(100)).refused).toBe(false);
      expect(() => guard.setLimits({ hourlyUsd: -1 })).toThrow(RangeError);
    });

    test("with a minimum, a reservation shrinks to what the tightest window has left, never below the minimum", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: 1, dailyUsd: 0.8 });
      // The whole estimate fits: it is reserved as it is.
      expect(reserved(await guard.reserve(0.3, 0.1)).estimateUsd).toBe(0.3);
      // 0.5 of the daily 0.8 is left: the estimate of 0.7 shrinks to it.
      const r = reserved(await guard.reserve(0.7, 0.1));
      expect(r.estimateUsd).toBe(0.5);
      expect((await guard.status()).daily).toMatchObject({ reservedUsd: 0.8 });
      // Nothing left: refused as the whole estimate would be.
      expect(await guard.reserve(0.7, 0.1)).toMatchObject({ refused: true, window: "daily" });
      await guard.release(r);
      // The hourly window is the tighter one once the daily limit is raised.
      guard.setLimits({ hourlyUsd: 0.4, dailyUsd: 5 });
      expect(reserved(await guard.reserve(2, 0.05)).estimateUsd).toBe(0.1);
      expect(await guard.reserve(2, 0.05)).toMatchObject({ refused: true, window: "hourly" });
      // A minimum above the estimate is the estimate: no reservation grows.
      expect(await guard.reserve(0.01, 0.02)).toMatchObject({ refused: true });
    });

    test("200 concurrent reservations up to what is left never jointly pass the budget, and fill it", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), { dailyUsd: 0.01 });
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => guard.reserve(0.0035 + (i % 7) * 1e-4, 0.0001)));
      const held = results.filter((r): r is BudgetReservation => !r.refused);
      const total = held.reduce((s, r) => s + Math.round(r.estimateUsd * 1e9), 0);
      expect(total).toBeLessThanOrEqual(1e7);
      expect(total).toBeGreaterThan(1e7 - 1e5); // only a remainder below the minimum stays unreserved
      await Promise.all(held.map((r) => guard.settle(r, r.estimateUsd)));
      const s = await guard.status();
      expect(s.daily.spentUsd).toBeLessThanOrEqual(0.01);
      expect(s.daily.reservedUsd).toBe(0);
    });

    test("rejects a negative or non-finite amount", async () => {
      const guard = newStorage().open(new ManualClock(T10_30), {});
      await expect(guard.reserve(-0.01)).rejects.toThrow(RangeError);
      await expect(guard.reserve(Number.NaN)).rejects.toThrow(RangeError);
    });

    test("50 concurrent requests costing at most their estimate never overshoot the budget", async () => {
      const request = fc.record({
        estimateMicros: fc.integer({ min: 0, max: 400_000 }),
        costShare: fc.double({ min: 0, max: 1, noNaN: true }),
        release: fc.boolean(),
        yields: fc.integer({ min: 0, max: 5 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 500 }), fc.array(request, { minLength: 50, maxLength: 50 }), async (budgetCents, requests) => {
          const budgetUsd = budgetCents / 100;
          const guard = newStorage().open(new ManualClock(T10_30), { hourlyUsd: budgetUsd, dailyUsd: budgetUsd });
          let settledNanos = 0;
          await Promise.all(
            requests.map(async (req) => {
              const estimate = req.estimateMicros / 1e6;
              const r = await guard.reserve(estimate);
              // Let other requests reserve and settle in between.
              for (let i = 0; i < req.yields; i++) await Promise.resolve();
              if (r.refused) return;
              if (req.release) return guard.release(r);
              const cost = Math.floor(estimate * req.costShare * 1e9) / 1e9;
              settledNanos += Math.round(cost * 1e9);
              await guard.settle(r, cost);
            }),
          );
          const s = await guard.status();
          expect(settledNanos).toBeLessThanOrEqual(budgetCents * 1e7);
          expect(Math.round(s.hourly.spentUsd * 1e9)).toBe(settledNanos);
          expect(s.hourly.reservedUsd).toBe(0);
          expect(s.daily.spentUsd).toBeLessThanOrEqual(budgetUsd);
        }),
        { numRuns: propertyRuns },
      );
    });
  });
}
