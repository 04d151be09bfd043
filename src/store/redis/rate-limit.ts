// Redis-backed RateLimiter for multi-instance deployments: every instance
// shares one sliding log per key (a sorted set scored by admission time), and
// a Lua script makes expire + check + admit a single atomic step.
//
// Time comes from the injected Clock rather than Redis TIME so behaviour is
// identical to the in-memory limiter (and testable); instances are expected to
// run NTP-synchronised clocks, where millisecond skew is immaterial against a
// one-minute window.

import type { RedisClient } from "bun";
import { randomHex } from "../../core/ids.ts";
import { systemClock, type Clock } from "../../core/limits/clock.ts";
import { RATE_WINDOW_MS, assertLimit, rateDecision, type RateDecision, type RateLimiter } from "../../core/limits/rate-limit.ts";

// KEYS[1] = log; ARGV = now, windowMs, limit, consume ("1"/"0"), member.
// Returns { allowed, count, msUntilSlot, msUntilReset }. When the limit shrank
// below the count, the entry blocking the next slot is the limit-th newest.
const SCRIPT = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then allowed = 1 end
if allowed == 1 and ARGV[4] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], win)
  count = count + 1
end
local untilSlot = 0
local untilReset = 0
if count > 0 then
  if allowed == 0 then
    local blocking = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
    untilSlot = tonumber(blocking[2]) + win - now
  end
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  untilReset = tonumber(newest[2]) + win - now
end
return { allowed, count, untilSlot, untilReset }
`;

export interface RedisRateLimiterOptions {
  client: RedisClient;
  /** Namespace for this deployment's keys. */
  prefix?: string;
  clock?: Clock;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly client: RedisClient;
  private readonly prefix: string;
  private readonly clock: Clock;
  /** Makes sorted-set members unique across instances admitting in the same millisecond. */
  private readonly instanceTag = randomHex(32);
  private seq = 0;

  constructor(opts: RedisRateLimiterOptions) {
    this.client = opts.client;
    this.prefix = opts.prefix ?? "relay:";
    this.clock = opts.clock ?? systemClock;
  }

  acquire(key: string, limitPerMinute: number, windowMs = RATE_WINDOW_MS): Promise<RateDecision> {
    return this.decide(key, limitPerMinute, true, windowMs);
  }

  peek(key: string, limitPerMinute: number): Promise<RateDecision> {
    return this.decide(key, limitPerMinute, false, RATE_WINDOW_MS);
  }

  private async decide(key: string, limit: number, consume: boolean, windowMs: number): Promise<RateDecision> {
    assertLimit(limit);
    const now = this.clock.now();
    const member = consume ? `${now}:${this.instanceTag}:${this.seq++}` : "";
    const reply = (await this.client.send("EVAL", [
      SCRIPT,
      "1",
      `${this.prefix}rate:${key}`,
      String(now),
      String(windowMs),
      String(limit),
      consume ? "1" : "0",
      member,
    ])) as [number, number, number, number];
    const [allowed, count, untilSlot, untilReset] = reply;
    return rateDecision(allowed === 1, count, limit, untilSlot, untilReset);
  }
}
