// Per-key requests-per-minute limiter (spec §8: per-model rate limit → 429
// `rate_limit_exceeded` with Retry-After).
//
// The in-memory implementation is an exact sliding log: a request counts for
// exactly 60 s after it was admitted. It is cheap here because the log never
// needs more than `limit` entries — once it is full, the oldest entry is the
// one whose expiry frees the next slot — so each key holds one fixed
// Float64Array ring and every operation is amortised O(1) with no per-request
// allocation beyond the decision itself. The sliding-window-counter
// approximation would save memory only for very large limits, and its
// Retry-After would be a guess rather than exact.

import { systemClock, type Clock } from "./clock.ts";

export const RATE_WINDOW_MS = 60_000;
/** Entries a key's log starts with before growing. */
const INITIAL_RING = 16;

export interface RateDecision {
  allowed: boolean;
  /** Slots left in the current window (after this request, when it was admitted). */
  remaining: number;
  limit: number;
  /** 0 when allowed; otherwise whole seconds (rounded up) until a slot frees. */
  retryAfterSec: number;
  /** Whole seconds (rounded up) until the full limit is available again; 0 when nothing is counted. */
  resetSec: number;
}

export interface RateLimiter {
  /**
   * Admit and count one request for `key`, or refuse it without counting. A limiter that holds
   * its state in memory answers synchronously, so the request path does not yield for it.
   * `windowMs`: the window a request counts in, a minute unless a caller (a webhook trigger's
   * `rateLimit.window`) names another; `limitPerMinute` is then the limit per that window.
   */
  acquire(key: string, limitPerMinute: number, windowMs?: number): RateDecision | Promise<RateDecision>;
  /** What `acquire` would answer now, without counting anything (dashboard headroom). */
  peek(key: string, limitPerMinute: number): Promise<RateDecision>;
}

/** The key a model's requests-per-minute are counted under (the router counts, the dashboard peeks). */
export const modelRateKey = (provider: string, model: string): string => `model:${provider}:${model}`;

export function assertLimit(limitPerMinute: number): void {
  if (!Number.isInteger(limitPerMinute) || limitPerMinute < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limitPerMinute}`);
  }
}

/**
 * Builds a decision from the window's state; shared by every implementation so
 * they round and report identically.
 * @param count requests counted in the window (including this one when admitted)
 * @param untilSlotMs ms until the entry blocking the next slot expires (used when refused)
 * @param untilResetMs ms until the newest counted entry expires
 */
export function rateDecision(
  allowed: boolean,
  count: number,
  limit: number,
  untilSlotMs: number,
  untilResetMs: number,
): RateDecision {
  return {
    allowed,
    remaining: Math.max(0, limit - count),
    limit,
    retryAfterSec: allowed ? 0 : Math.ceil(untilSlotMs / 1000),
    resetSec: count === 0 ? 0 : Math.ceil(untilResetMs / 1000),
  };
}

/**
 * Timestamps of the admitted requests of one key, oldest first, at most
 * `limit`. The ring starts small and doubles as traffic fills it, so a high
 * limit costs memory only for requests that really arrive (a limit of 10^8
 * "to never trigger" must not reserve 800 MB up front).
 */
class SlidingLog {
  ring: Float64Array;
  head = 0;
  size = 0;

  constructor(
    public limit: number,
    public windowMs: number,
  ) {
    this.ring = new Float64Array(Math.min(limit, INITIAL_RING));
  }

  oldest(): number {
    return this.ring[this.head];
  }

  newest(): number {
    return this.ring[(this.head + this.size - 1) % this.ring.length];
  }

  /** Drop entries that have left the window ending at `now`. */
  expire(now: number): void {
    const cutoff = now - this.windowMs;
    while (this.size > 0 && this.ring[this.head] <= cutoff) {
      this.head = (this.head + 1) % this.ring.length;
      this.size--;
    }
  }

  /** Only called while size < limit. */
  push(t: number): void {
    if (this.size === this.ring.length) this.resize(Math.min(this.limit, this.ring.length * 2));
    this.ring[(this.head + this.size) % this.ring.length] = t;
    this.size++;
  }

  /**
   * Change the limit. When it shrinks below the entries held, only the newest
   * are kept: the dropped older entries could not decide anything anyway, as
   * the next slot frees when the limit-th newest entry expires.
   */
  setLimit(limit: number): void {
    this.limit = limit;
    if (this.ring.length > limit) this.resize(limit);
  }

  private resize(capacity: number): void {
    const kept = Math.min(this.size, capacity);
    const ring = new Float64Array(capacity);
    for (let i = 0; i < kept; i++) {
      ring[i] = this.ring[(this.head + this.size - kept + i) % this.ring.length];
    }
    this.ring = ring;
    this.head = 0;
    this.size = kept;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private lastSweep: number;

  constructor(private readonly clock: Clock = systemClock) {
    this.lastSweep = clock.now();
  }

  /** Number of keys currently tracked (for tests and diagnostics). */
  get trackedKeys(): number {
    return this.logs.size;
  }

  /** Synchronous; a bad limit still becomes a rejection, as from every limiter. */
  acquire(key: string, limitPerMinute: number, windowMs = RATE_WINDOW_MS): RateDecision | Promise<RateDecision> {
    try {
      return this.decide(key, limitPerMinute, true, windowMs);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async peek(key: string, limitPerMinute: number): Promise<RateDecision> {
    return this.decide(key, limitPerMinute, false, RATE_WINDOW_MS);
  }

  private decide(key: string, limit: number, consume: boolean, windowMs: number): RateDecision {
    assertLimit(limit);
    const now = this.clock.now();
    this.sweep(now);
    let log = this.logs.get(key);
    if (log === undefined) {
      if (!consume) return rateDecision(true, 0, limit, 0, 0);
      log = new SlidingLog(limit, windowMs);
      this.logs.set(key, log);
    } else if (log.limit !== limit) {
      log.setLimit(limit);
    }
    log.windowMs = windowMs;
    log.expire(now);
    const allowed = log.size < limit;
    if (allowed && consume) log.push(now);
    const untilSlot = log.size === 0 ? 0 : log.oldest() + windowMs - now;
    const untilReset = log.size === 0 ? 0 : log.newest() + windowMs - now;
    return rateDecision(allowed, log.size, limit, untilSlot, untilReset);
  }

  /** At most once per window, forget keys whose every entry has expired, so key churn cannot grow memory. */
  private sweep(now: number): void {
    if (now - this.lastSweep < RATE_WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, log] of this.logs) {
      if (log.size === 0 || log.newest() <= now - log.windowMs) this.logs.delete(key);
    }
  }
}
