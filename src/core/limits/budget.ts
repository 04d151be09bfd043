// Hourly and daily USD budgets (spec §8: 429 `budget_exceeded`).
//
// A request reserves its estimated cost before it is sent and settles the
// actual cost when it ends (or releases the reservation when nothing was
// spent). Admission counts spent + reserved, so concurrent requests can never
// jointly overshoot a budget as long as each costs no more than its estimate.
// Spend is the truth: an actual cost above the estimate is recorded in full;
// only later reservations are refused.
//
// A reservation may also be taken "up to" an estimate: given a smaller
// minimum, the guard reserves whatever the windows have left (at least the
// minimum) in the same atomic step, and the reservation says how much. The
// pipeline sizes a capped max_tokens by it (see budget-output.ts).
//
// Windows are calendar UTC hours and UTC days. A reservation's cost goes to
// the windows current when it was made, even if it settles after a rollover.
//
// Amounts are kept as integer nano-dollars, so sums are exact and storage
// counters can be plain integer increments (BudgetSpend.add, Redis INCRBY).
// Persisted keys `spend:hour:<YYYY-MM-DDTHH>` and `spend:day:<YYYY-MM-DD>`
// therefore hold nano-USD.
//
// The guards: budget-memory.ts (one instance) and src/store/redis/budget.ts (shared);
// what one run holds of them: budget-run.ts.
import { sequentialIds } from "../ids.ts";

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
  /**
   * Reserve `estimateUsd`; with `minUsd` below it, reserve what the windows have left when the whole
   * estimate does not fit, as long as that is at least `minUsd` (the reservation's estimateUsd says
   * how much). Synchronous when the guard can decide from memory, so the request path does not yield for it.
   */
  reserve(estimateUsd: number, minUsd?: number): BudgetReservation | BudgetRefusal | Promise<BudgetReservation | BudgetRefusal>;
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

/**
 * The amount to reserve for an estimate that may shrink to `minNanos`: the estimate, or what the
 * tightest limited window has left when that is less (never below the minimum; checkBudget then refuses).
 */
export function fittedNanos(limits: BudgetLimits, hour: WindowTally, day: WindowTally, estimateNanos: number, minNanos: number): number {
  if (minNanos >= estimateNanos) return estimateNanos;
  let room = estimateNanos;
  if (limits.dailyUsd !== undefined) room = Math.min(room, limitToNanos(limits.dailyUsd) - day.spent - day.reserved);
  if (limits.hourlyUsd !== undefined) room = Math.min(room, limitToNanos(limits.hourlyUsd) - hour.spent - hour.reserved);
  return room >= minNanos ? room : estimateNanos;
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
  /** `prefix1`, `prefix2`, …: a reservation id only needs to be unique to the book that issued it. */
  readonly newId: () => string;

  constructor(idPrefix: string) {
    this.newId = sequentialIds(idPrefix);
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
