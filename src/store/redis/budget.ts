// Redis-backed BudgetGuard for multi-instance deployments. Spend counters and
// reservations both live in Redis (spend cannot stay in the store's budgets
// aggregate: the check across instances must read spend and reservations in one
// atomic step, which a Lua script gives). Same windows, units and key names
// as the in-memory guard (see src/core/limits/budget.ts), under a deployment prefix.
//
// Reservations are sorted-set members "<id>:<nano-USD>" scored by an expiry
// time, so a reservation held by an instance that crashed stops blocking the
// budget after `reservationTtlMs` instead of until the window rolls over.
// Window keys expire a day after their window ends.

import type { RedisClient } from "bun";
import { randomHex } from "../../core/ids.ts";
import { systemClock, type Clock } from "../../core/limits/clock.ts";
import {
  ReservationBook,
  calendarWindowsAt,
  checkBudget,
  limitToNanos,
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
} from "../../core/limits/budget.ts";

const KEY_GRACE_MS = 86_400_000;

// KEYS = spend:hour, spend:day, reserved:hour, reserved:day. ARGV[1] = now.
const TALLIES_LUA = `
local now = tonumber(ARGV[1])
local function reserved(key)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local total = 0
  for _, member in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    total = total + tonumber(string.match(member, ':(%d+)$'))
  end
  return total
end
local spentH = tonumber(redis.call('GET', KEYS[1]) or '0')
local spentD = tonumber(redis.call('GET', KEYS[2]) or '0')
local resvH = reserved(KEYS[3])
local resvD = reserved(KEYS[4])
`;

const STATUS_SCRIPT = `${TALLIES_LUA}
return { spentH, resvH, spentD, resvD }
`;

// ARGV: now, estimate, hourly limit (-1 = none), daily limit (-1 = none),
// reservation id, member expiry, hour key ttl, day key ttl, minimum.
// The amount is the estimate, or what the tightest window has left when that is
// less but at least the minimum (fittedNanos in src/core/limits/budget.ts, the same rule).
// Returns { admitted, spentH, resvH, spentD, resvD, amount } with the tallies before admission.
const RESERVE_SCRIPT = `${TALLIES_LUA}
local est = tonumber(ARGV[2])
local limitH = tonumber(ARGV[3])
local limitD = tonumber(ARGV[4])
local min = tonumber(ARGV[9])
local amount = est
if min < est then
  if limitD >= 0 then amount = math.min(amount, limitD - spentD - resvD) end
  if limitH >= 0 then amount = math.min(amount, limitH - spentH - resvH) end
  if amount < min then amount = est end
end
if (limitD >= 0 and spentD + resvD + amount > limitD) or (limitH >= 0 and spentH + resvH + amount > limitH) then
  return { 0, spentH, resvH, spentD, resvD, amount }
end
local member = ARGV[5] .. ':' .. string.format('%d', amount)
redis.call('ZADD', KEYS[3], ARGV[6], member)
redis.call('ZADD', KEYS[4], ARGV[6], member)
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('PEXPIRE', KEYS[4], ARGV[8])
return { 1, spentH, resvH, spentD, resvD, amount }
`;

// KEYS as above. ARGV: member, actual cost, hour key ttl, day key ttl.
const SETTLE_SCRIPT = `
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
local actual = tonumber(ARGV[2])
if actual > 0 then
  redis.call('INCRBY', KEYS[1], actual)
  redis.call('INCRBY', KEYS[2], actual)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return 1
`;

/** The sorted-set member carries the amount so the script can sum reservations (RESERVE_SCRIPT builds the same). */
function reservationMember(id: string, estimateNanos: number): string {
  return `${id}:${estimateNanos}`;
}

export interface RedisBudgetGuardOptions {
  client: RedisClient;
  /** Namespace for this deployment's keys. */
  prefix?: string;
  limits?: BudgetLimits;
  clock?: Clock;
  /** How long a reservation may stay unsettled before it stops counting. Default 30 minutes. */
  reservationTtlMs?: number;
}

export class RedisBudgetGuard implements BudgetGuard {
  private readonly client: RedisClient;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly reservationTtlMs: number;
  private limits: BudgetLimits;
  private readonly book = new ReservationBook(`redis-${randomHex(32)}-`);

  constructor(opts: RedisBudgetGuardOptions) {
    this.client = opts.client;
    this.prefix = opts.prefix ?? "relay:";
    this.clock = opts.clock ?? systemClock;
    this.reservationTtlMs = opts.reservationTtlMs ?? 30 * 60_000;
    this.limits = validateLimits(opts.limits ?? {});
  }

  setLimits(limits: BudgetLimits): void {
    this.limits = validateLimits(limits);
  }

  async reserve(estimateUsd: number, minUsd = estimateUsd): Promise<BudgetReservation | BudgetRefusal> {
    const estimateNanos = toNanos(estimateUsd, "up");
    const minNanos = toNanos(minUsd, "up");
    const now = this.clock.now();
    const windows = calendarWindowsAt(now);
    const limits = this.limits;
    const id = this.book.newId();
    const [admitted, spentH, resvH, spentD, resvD, amount] = (await this.run(RESERVE_SCRIPT, windows, [
      String(now),
      String(estimateNanos),
      String(limits.hourlyUsd === undefined ? -1 : limitToNanos(limits.hourlyUsd)),
      String(limits.dailyUsd === undefined ? -1 : limitToNanos(limits.dailyUsd)),
      id,
      String(now + this.reservationTtlMs),
      String(this.keyTtl(windows.hour, now)),
      String(this.keyTtl(windows.day, now)),
      String(minNanos),
    ])) as number[];
    const nanos = amount!;
    if (admitted === 1) return this.book.issue(id, { estimateNanos: nanos, hour: windows.hour, day: windows.day }, nanos === estimateNanos ? estimateUsd : toUsd(nanos));
    // The script applied the same rule atomically; rebuild the refusal from the tallies it saw.
    const refusal = checkBudget(limits, windows, { spent: spentH, reserved: resvH }, { spent: spentD, reserved: resvD }, nanos, now);
    if (refusal === undefined) throw new Error("budget script refused a reservation the admission rule allows");
    return refusal;
  }

  async settle(r: BudgetReservation, actualUsd: number): Promise<void> {
    await this.finish(r, toNanos(actualUsd, "nearest"));
  }

  async release(r: BudgetReservation): Promise<void> {
    await this.finish(r, 0);
  }

  /** Spend is written to Redis atomically on every settle; nothing is held back. */
  async flush(): Promise<void> {}

  async status(): Promise<BudgetStatus> {
    const now = this.clock.now();
    const windows = calendarWindowsAt(now);
    const [spentH, resvH, spentD, resvD] = (await this.run(STATUS_SCRIPT, windows, [String(now)])) as number[];
    return {
      hourly: windowStatus(windows.hour, this.limits.hourlyUsd, { spent: spentH, reserved: resvH }, now),
      daily: windowStatus(windows.day, this.limits.dailyUsd, { spent: spentD, reserved: resvD }, now),
    };
  }

  private async finish(r: BudgetReservation, actualNanos: number): Promise<void> {
    const held = this.book.take(r);
    const now = this.clock.now();
    await this.run(SETTLE_SCRIPT, held, [reservationMember(r.id, held.estimateNanos), String(actualNanos), String(this.keyTtl(held.hour, now)), String(this.keyTtl(held.day, now))]);
  }

  private run(script: string, windows: CalendarWindows, args: string[]): Promise<unknown> {
    const p = this.prefix;
    return this.client.send("EVAL", [
      script,
      "4",
      `${p}${windows.hour.spendKey}`,
      `${p}${windows.day.spendKey}`,
      `${p}reserved:hour:${windows.hour.label}`,
      `${p}reserved:day:${windows.day.label}`,
      ...args,
    ]);
  }

  private keyTtl(window: CalendarWindow, now: number): number {
    return Math.max(0, window.endMs - now) + KEY_GRACE_MS;
  }
}
