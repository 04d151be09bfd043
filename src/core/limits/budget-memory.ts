// The in-memory BudgetGuard: one instance's tallies, authoritative in memory so that
// check-and-reserve is one synchronous step, with spend persisted to the store's budgets in
// batches. Windows, units and the admission rule are budget.ts's.
import type { BudgetSpend } from "../../store/budgets/types.ts";
import {
  ReservationBook,
  calendarWindowsAt,
  checkBudget,
  fittedNanos,
  toNanos,
  toUsd,
  validateLimits,
  windowStatus,
  type BudgetGuard,
  type BudgetLimits,
  type BudgetRefusal,
  type BudgetReservation,
  type BudgetStatus,
  type CalendarWindow,
  type CalendarWindows,
  type WindowTally,
} from "./budget.ts";
import { systemClock, type Clock } from "./clock.ts";
import { unrefTimer } from "../../runtime/timers.ts";

const RESOLVED = Promise.resolve();

/** How often accumulated spend is written to the store. */
const SAVE_EVERY_MS = 1_000;

export interface MemoryBudgetGuardOptions {
  spend: BudgetSpend;
  limits?: BudgetLimits;
  clock?: Clock;
}

export class MemoryBudgetGuard implements BudgetGuard {
  private readonly spend: BudgetSpend;
  private readonly clock: Clock;
  private limits: BudgetLimits;
  private readonly book = new ReservationBook("mem-");
  /**
   * Tallies of the current windows, keyed by spend key. Loaded from the store
   * once, then kept authoritative in memory so check-and-reserve is one
   * synchronous step (no stale read between concurrent requests).
   */
  private readonly tallies = new Map<string, Promise<WindowTally>>();
  /** The same tallies once loaded, so the hot path needs no await. */
  private readonly loaded = new Map<string, WindowTally>();
  private currentHourKey = "";
  /** Spend added since the last save, by spend key. */
  private readonly unsaved = new Map<string, number>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: MemoryBudgetGuardOptions) {
    this.spend = opts.spend;
    this.clock = opts.clock ?? systemClock;
    this.limits = validateLimits(opts.limits ?? {});
  }

  setLimits(limits: BudgetLimits): void {
    this.limits = validateLimits(limits);
  }

  /** Synchronous once the current windows' tallies are loaded; a bad estimate still becomes a rejection. */
  reserve(estimateUsd: number, minUsd = estimateUsd): BudgetReservation | BudgetRefusal | Promise<BudgetReservation | BudgetRefusal> {
    let estimateNanos: number;
    let minNanos: number;
    try {
      estimateNanos = toNanos(estimateUsd, "up");
      minNanos = toNanos(minUsd, "up");
    } catch (e) {
      return Promise.reject(e);
    }
    const now = this.clock.now();
    const windows = this.current(now);
    const hour = this.loaded.get(windows.hour.spendKey);
    const day = this.loaded.get(windows.day.spendKey);
    if (hour !== undefined && day !== undefined) return this.admit(windows, hour, day, estimateNanos, minNanos, estimateUsd, now);
    // First request of a window: its tallies come from the store once.
    return Promise.all([this.tally(windows.hour), this.tally(windows.day)]).then(([h, d]) => this.admit(windows, h, d, estimateNanos, minNanos, estimateUsd, now));
  }

  /** Synchronous, so the check and the reservation are atomic. */
  private admit(
    windows: CalendarWindows,
    hour: WindowTally,
    day: WindowTally,
    estimateNanos: number,
    minNanos: number,
    estimateUsd: number,
    now: number,
  ): BudgetReservation | BudgetRefusal {
    const nanos = fittedNanos(this.limits, hour, day, estimateNanos, minNanos);
    const refusal = checkBudget(this.limits, windows, hour, day, nanos, now);
    if (refusal !== undefined) return refusal;
    hour.reserved += nanos;
    day.reserved += nanos;
    return this.book.issue(this.book.newId(), { estimateNanos: nanos, hour: windows.hour, day: windows.day }, nanos === estimateNanos ? estimateUsd : toUsd(nanos));
  }

  settle(r: BudgetReservation, actualUsd: number): Promise<void> {
    return this.free(r, () => toNanos(actualUsd, "nearest"));
  }

  release(r: BudgetReservation): Promise<void> {
    return this.free(r, () => 0);
  }

  /** Synchronous for this guard (the interface is async for shared stores); errors become rejections. */
  private free(r: BudgetReservation, actualNanos: () => number): Promise<void> {
    try {
      const nanos = actualNanos();
      const held = this.book.take(r);
      this.apply(held.hour, held.estimateNanos, nanos);
      this.apply(held.day, held.estimateNanos, nanos);
      return RESOLVED;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async status(): Promise<BudgetStatus> {
    const now = this.clock.now();
    const windows = this.current(now);
    const [hour, day] = await Promise.all([this.tally(windows.hour), this.tally(windows.day)]);
    return {
      hourly: windowStatus(windows.hour, this.limits.hourlyUsd, hour, now),
      daily: windowStatus(windows.day, this.limits.dailyUsd, day, now),
    };
  }

  /** Current windows; at an hour rollover, forget tallies of past windows. */
  private current(now: number): CalendarWindows {
    const windows = calendarWindowsAt(now);
    if (windows.hour.spendKey !== this.currentHourKey) {
      this.currentHourKey = windows.hour.spendKey;
      for (const key of this.tallies.keys()) {
        if (key !== windows.hour.spendKey && key !== windows.day.spendKey) {
          this.tallies.delete(key);
          this.loaded.delete(key);
        }
      }
    }
    return windows;
  }

  private tally(window: CalendarWindow): Promise<WindowTally> {
    let tally = this.tallies.get(window.spendKey);
    if (tally === undefined) {
      tally = this.spend.spent(window.spendKey).then((spent) => {
        const t = { spent, reserved: 0 };
        // Only while still current: a rollover during the load has already dropped this window.
        if (this.tallies.get(window.spendKey) === tally) this.loaded.set(window.spendKey, t);
        return t;
      });
      // A failed load must not be cached, or the window would stay broken.
      tally.catch(() => this.tallies.delete(window.spendKey));
      this.tallies.set(window.spendKey, tally);
    }
    return tally;
  }

  /**
   * Free a reservation's estimate and add its actual cost. The in-memory tally
   * is the truth for this instance at once; the store is updated in batches
   * (at most once a second, and on flush) so no request pays for a disk write.
   */
  private apply(window: CalendarWindow, estimateNanos: number, actualNanos: number): void {
    // A reservation is only issued once both tallies are loaded; a window dropped at rollover needs no update.
    const tally = this.loaded.get(window.spendKey);
    if (tally !== undefined) {
      tally.reserved -= estimateNanos;
      tally.spent += actualNanos;
    }
    if (actualNanos <= 0) return;
    this.unsaved.set(window.spendKey, (this.unsaved.get(window.spendKey) ?? 0) + actualNanos);
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      this.flush().catch(() => {}); // failed deltas stay queued for the next save
    }, SAVE_EVERY_MS);
    unrefTimer(this.saveTimer);
  }

  async flush(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    for (const [key, delta] of [...this.unsaved]) {
      this.unsaved.delete(key);
      try {
        await this.spend.add(key, delta);
      } catch (e) {
        this.unsaved.set(key, (this.unsaved.get(key) ?? 0) + delta);
        throw e;
      }
    }
  }
}
