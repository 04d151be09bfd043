// Hourly and daily USD budgets (spec §8: 429 `budget_exceeded`).
//
// A request reserves its estimated cost before it is sent and settles the
// actual cost when it ends (or releases the reservation when nothing was
// spent). Admission counts spent + reserved, so concurrent requests can never
// jointly overshoot a budget as long as each costs no more than its estimate.
// Spend is the truth: an actual cost above the estimate is recorded in full;
// only later reservations are refused.
//
// Windows are calendar UTC hours and UTC days. A reservation's cost goes to
// the windows current when it was made, even if it settles after a rollover.
//
// Amounts are kept as integer nano-dollars, so sums are exact and storage
// counters can be plain integer increments (KvStore.incrBy, Redis INCRBY).
// Persisted keys `spend:hour:<YYYY-MM-DDTHH>` and `spend:day:<YYYY-MM-DD>`
// therefore hold nano-USD.

import { systemClock, type Clock } from "./clock.ts";
import type { KvStore } from "../../store/types.ts";

export interface BudgetLimits {
  /** Absent = no hourly limit. */
  hourlyUsd?: number;
  /** Absent = no daily limit. */
  dailyUsd?: number;
}

export type BudgetWindowName = "hourly" | "daily";

export interface BudgetReservation {
  readonly refused: false;
  readonly id: string;
  readonly estimateUsd: number;
  /** UTC hour the reservation counts against, e.g. "2026-11-22T10". */
  readonly hour: string;
  /** UTC day the reservation counts against, e.g. "2026-11-22". */
  readonly day: string;
}

export interface BudgetRefusal {
  refused: true;
  window: BudgetWindowName;
  limitUsd: number;
  /** Settled spend in the refusing window (reservations in flight excluded). */
  spentUsd: number;
  /** Whole seconds until the refusing window rolls over. */
  retryAfterSec: number;
}

export interface BudgetWindowStatus {
  /** "2026-11-22T10" for the hour, "2026-11-22" for the day. */
  window: string;
  limitUsd?: number;
  spentUsd: number;
  reservedUsd: number;
  resetsInSec: number;
}

export interface BudgetStatus {
  hourly: BudgetWindowStatus;
  daily: BudgetWindowStatus;
}

export interface BudgetGuard {
  /** Synchronous when the guard can decide from memory, so the request path does not yield for it. */
  reserve(estimateUsd: number): BudgetReservation | BudgetRefusal | Promise<BudgetReservation | BudgetRefusal>;
  /** Record the actual cost and free the reservation. Once per reservation. */
  settle(r: BudgetReservation, actualUsd: number): Promise<void>;
  /** Free the reservation without spending. Once per reservation. */
  release(r: BudgetReservation): Promise<void>;
  status(): Promise<BudgetStatus>;
  setLimits(limits: BudgetLimits): void;
  /** Persist spend not yet saved (the in-memory guard saves in batches); call before shutdown. */
  flush(): Promise<void>;
}

// ---- pieces shared by the in-memory and Redis guards ----

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const NANOS_PER_USD = 1e9;

export interface CalendarWindow {
  /** Storage key of the window's spend counter, e.g. "spend:hour:2026-11-22T10". */
  spendKey: string;
  /** "2026-11-22T10" or "2026-11-22". */
  label: string;
  endMs: number;
}

export interface CalendarWindows {
  hour: CalendarWindow;
  day: CalendarWindow;
}

let lastWindows: CalendarWindows | undefined;

/** The UTC hour and day containing `nowMs` (memoised: the hot path recomputes only at rollover). */
export function calendarWindowsAt(nowMs: number): CalendarWindows {
  const hourStart = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  if (lastWindows !== undefined && lastWindows.hour.endMs === hourStart + HOUR_MS) return lastWindows;
  // Epoch milliseconds have no leap seconds, so UTC days are exactly DAY_MS long.
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const iso = new Date(hourStart).toISOString();
  lastWindows = {
    hour: { spendKey: `spend:hour:${iso.slice(0, 13)}`, label: iso.slice(0, 13), endMs: hourStart + HOUR_MS },
    day: { spendKey: `spend:day:${iso.slice(0, 10)}`, label: iso.slice(0, 10), endMs: dayStart + DAY_MS },
  };
  return lastWindows;
}

/** Estimates round up (reserve conservatively); actual costs round to nearest. */
export function toNanos(usd: number, rounding: "up" | "nearest"): number {
  if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`USD amount must be finite and >= 0, got ${usd}`);
  const nanos = usd * NANOS_PER_USD;
  return rounding === "up" ? Math.ceil(nanos) : Math.round(nanos);
}

/** A limit rounds down, so rounding can never let spend exceed it. */
export function limitToNanos(usd: number): number {
  return Math.floor(usd * NANOS_PER_USD);
}

export function toUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}

function secondsUntil(endMs: number, nowMs: number): number {
  return Math.ceil((endMs - nowMs) / 1000);
}

/** A window's counters in nano-USD. */
export interface WindowTally {
  spent: number;
  reserved: number;
}

/**
 * Admission rule: refuse when spent + reserved + estimate exceeds a limit.
 * The daily window is checked first because, when both are exhausted, only
 * the daily rollover makes a retry worthwhile.
 */
export function checkBudget(
  limits: BudgetLimits,
  windows: CalendarWindows,
  hour: WindowTally,
  day: WindowTally,
  estimateNanos: number,
  nowMs: number,
): BudgetRefusal | undefined {
  return (
    checkWindow("daily", limits.dailyUsd, day, windows.day, estimateNanos, nowMs) ??
    checkWindow("hourly", limits.hourlyUsd, hour, windows.hour, estimateNanos, nowMs)
  );
}

function checkWindow(
  name: BudgetWindowName,
  limitUsd: number | undefined,
  tally: WindowTally,
  window: CalendarWindow,
  estimateNanos: number,
  nowMs: number,
): BudgetRefusal | undefined {
  if (limitUsd === undefined || tally.spent + tally.reserved + estimateNanos <= limitToNanos(limitUsd)) return undefined;
  return { refused: true, window: name, limitUsd, spentUsd: toUsd(tally.spent), retryAfterSec: secondsUntil(window.endMs, nowMs) };
}

export function windowStatus(window: CalendarWindow, limitUsd: number | undefined, tally: WindowTally, nowMs: number): BudgetWindowStatus {
  return {
    window: window.label,
    ...(limitUsd === undefined ? {} : { limitUsd }),
    spentUsd: toUsd(tally.spent),
    reservedUsd: toUsd(tally.reserved),
    resetsInSec: secondsUntil(window.endMs, nowMs),
  };
}

export function validateLimits(limits: BudgetLimits): BudgetLimits {
  for (const v of [limits.hourlyUsd, limits.dailyUsd]) {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new RangeError(`budget limit must be finite and >= 0, got ${v}`);
  }
  return { ...limits };
}

/** What a guard remembers about a live reservation. */
export interface HeldReservation {
  estimateNanos: number;
  hour: CalendarWindow;
  day: CalendarWindow;
}

/**
 * Issues reservation ids and enforces that each is settled or released once. A reservation
 * carries its own held state rather than the book keeping a map of live ones: JavaScriptCore's
 * young collections keep visiting what a long-lived Map or Set has had deleted from it (until its
 * table is rebuilt, it seems), so a map that gained and lost an entry on every request made every
 * young collection slower (in process, `BUN_JSC_logGC=2`: ~690 → ~400 KB visited per young
 * collection; the control state's set of requests in flight was most of the rest).
 */
export class ReservationBook {
  private seq = 0;

  constructor(private readonly idPrefix: string) {}

  newId(): string {
    return `${this.idPrefix}${++this.seq}`;
  }

  /** Record an admitted reservation under an id from newId(). */
  issue(id: string, held: HeldReservation, estimateUsd: number): BudgetReservation {
    return new IssuedReservation(this, id, held, estimateUsd);
  }

  take(r: BudgetReservation): HeldReservation {
    const held = IssuedReservation.take(r, this);
    if (held === undefined) throw new Error(`budget reservation ${r.id} is not held by this guard: already settled or released, or issued by another`);
    return held;
  }
}

/** A reservation as issued: its held state is private (not serialised) and handed over once. */
class IssuedReservation implements BudgetReservation {
  readonly refused = false;
  readonly hour: string;
  readonly day: string;
  #book: ReservationBook;
  #held: HeldReservation | undefined;

  constructor(
    book: ReservationBook,
    readonly id: string,
    held: HeldReservation,
    readonly estimateUsd: number,
  ) {
    this.#book = book;
    this.#held = held;
    this.hour = held.hour.label;
    this.day = held.day.label;
  }

  /** The held state of a reservation this book issued, once; undefined afterwards or for any other. */
  static take(r: BudgetReservation, book: ReservationBook): HeldReservation | undefined {
    if (!(r instanceof IssuedReservation) || r.#book !== book) return undefined;
    const held = r.#held;
    r.#held = undefined;
    return held;
  }
}

// ---- in-memory guard (single instance; spend persisted through KvStore) ----

const RESOLVED = Promise.resolve();

/** How often accumulated spend is written to the store. */
const SAVE_EVERY_MS = 1_000;

export interface MemoryBudgetGuardOptions {
  store: KvStore;
  limits?: BudgetLimits;
  clock?: Clock;
}

export class MemoryBudgetGuard implements BudgetGuard {
  private readonly store: KvStore;
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
    this.store = opts.store;
    this.clock = opts.clock ?? systemClock;
    this.limits = validateLimits(opts.limits ?? {});
  }

  setLimits(limits: BudgetLimits): void {
    this.limits = validateLimits(limits);
  }

  /** Synchronous once the current windows' tallies are loaded; a bad estimate still becomes a rejection. */
  reserve(estimateUsd: number): BudgetReservation | BudgetRefusal | Promise<BudgetReservation | BudgetRefusal> {
    let estimateNanos: number;
    try {
      estimateNanos = toNanos(estimateUsd, "up");
    } catch (e) {
      return Promise.reject(e);
    }
    const now = this.clock.now();
    const windows = this.current(now);
    const hour = this.loaded.get(windows.hour.spendKey);
    const day = this.loaded.get(windows.day.spendKey);
    if (hour !== undefined && day !== undefined) return this.admit(windows, hour, day, estimateNanos, estimateUsd, now);
    // First request of a window: its tallies come from the store once.
    return Promise.all([this.tally(windows.hour), this.tally(windows.day)]).then(([h, d]) => this.admit(windows, h, d, estimateNanos, estimateUsd, now));
  }

  /** Synchronous, so the check and the reservation are atomic. */
  private admit(windows: CalendarWindows, hour: WindowTally, day: WindowTally, estimateNanos: number, estimateUsd: number, now: number): BudgetReservation | BudgetRefusal {
    const refusal = checkBudget(this.limits, windows, hour, day, estimateNanos, now);
    if (refusal !== undefined) return refusal;
    hour.reserved += estimateNanos;
    day.reserved += estimateNanos;
    return this.book.issue(this.book.newId(), { estimateNanos, hour: windows.hour, day: windows.day }, estimateUsd);
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
      tally = this.store.getKv(window.spendKey).then((v) => {
        const t = { spent: v === undefined ? 0 : Number(v), reserved: 0 };
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
    this.saveTimer.unref?.();
  }

  async flush(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    for (const [key, delta] of [...this.unsaved]) {
      this.unsaved.delete(key);
      try {
        await this.store.incrBy(key, delta);
      } catch (e) {
        this.unsaved.set(key, (this.unsaved.get(key) ?? 0) + delta);
        throw e;
      }
    }
  }
}
