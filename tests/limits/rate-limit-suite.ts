// Behaviour every RateLimiter must show; run against each implementation.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ManualClock } from "../../src/core/limits/clock.ts";
import type { RateLimiter } from "../../src/core/limits/rate-limit.ts";

const WINDOW = 60_000;

/** `makeLimiter` must give a limiter with no prior state for the keys it is asked about. */
export function rateLimiterBehaviour(name: string, makeLimiter: (clock: ManualClock) => RateLimiter, propertyRuns: number): void {
  describe(`${name} rate limiter`, () => {
    test("admits up to the limit, then answers the exact wait until a slot frees", async () => {
      const clock = new ManualClock(1_000_000);
      const rl = makeLimiter(clock);
      expect(await rl.acquire("m", 2)).toEqual({ allowed: true, remaining: 1, limit: 2, retryAfterSec: 0, resetSec: 60 });
      clock.advance(10_000);
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: true, remaining: 0 });
      clock.advance(10_000);
      // Requests at t=0 and t=10s; the t=0 one frees its slot at t=60s.
      expect(await rl.acquire("m", 2)).toEqual({ allowed: false, remaining: 0, limit: 2, retryAfterSec: 40, resetSec: 50 });
    });

    test("a request counts for exactly one window: refused 1 ms before, admitted at the edge", async () => {
      const clock = new ManualClock(5_000_000);
      const rl = makeLimiter(clock);
      await rl.acquire("m", 2);
      clock.advance(10_000);
      await rl.acquire("m", 2);
      clock.set(5_000_000 + WINDOW - 1);
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: false, retryAfterSec: 1 });
      clock.set(5_000_000 + WINDOW);
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: true, remaining: 0 });
      // Now the t=10s request blocks the next slot until t=70s.
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: false, retryAfterSec: 10 });
    });

    test("refused requests are not counted", async () => {
      const clock = new ManualClock(0);
      const rl = makeLimiter(clock);
      await rl.acquire("m", 1);
      for (let i = 0; i < 5; i++) {
        clock.advance(10_000);
        expect((await rl.acquire("m", 1)).allowed).toBe(false);
      }
      clock.set(WINDOW);
      expect((await rl.acquire("m", 1)).allowed).toBe(true);
    });

    test("keys are limited independently", async () => {
      const rl = makeLimiter(new ManualClock(0));
      expect((await rl.acquire("a", 1)).allowed).toBe(true);
      expect((await rl.acquire("a", 1)).allowed).toBe(false);
      expect((await rl.acquire("b", 1)).allowed).toBe(true);
    });

    test("peek reports headroom without consuming", async () => {
      const clock = new ManualClock(0);
      const rl = makeLimiter(clock);
      expect(await rl.peek("m", 3)).toEqual({ allowed: true, remaining: 3, limit: 3, retryAfterSec: 0, resetSec: 0 });
      await rl.acquire("m", 3);
      clock.advance(30_000);
      await rl.acquire("m", 3);
      clock.advance(15_000);
      for (let i = 0; i < 3; i++) {
        expect(await rl.peek("m", 3)).toEqual({ allowed: true, remaining: 1, limit: 3, retryAfterSec: 0, resetSec: 45 });
      }
      await rl.acquire("m", 3);
      expect(await rl.peek("m", 3)).toEqual({ allowed: false, remaining: 0, limit: 3, retryAfterSec: 15, resetSec: 60 });
    });

    test("a lowered limit waits for the limit-th newest request to expire", async () => {
      const clock = new ManualClock(0);
      const rl = makeLimiter(clock);
      for (let i = 0; i < 4; i++) {
        clock.set(i * 1000);
        await rl.acquire("m", 5);
      }
      clock.set(4000);
      // Admissions at 0,1,2,3 s; with limit 2 the slot frees when the 2 s one expires.
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 58 });
      clock.set(62_000);
      expect(await rl.acquire("m", 2)).toMatchObject({ allowed: true, remaining: 0 });
    });

    test("rejects a limit that is not a positive integer", async () => {
      const rl = makeLimiter(new ManualClock(0));
      await expect(rl.acquire("m", 0)).rejects.toThrow(RangeError);
      await expect(rl.peek("m", 1.5)).rejects.toThrow(RangeError);
    });

    test("matches a naive sliding-log model on random traffic", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(fc.integer({ min: 0, max: 25_000 }), { minLength: 1, maxLength: 40 }), async (limit, gaps) => {
          const clock = new ManualClock(10_000_000);
          const rl = makeLimiter(clock);
          const key = `prop-${run++}`;
          const admitted: number[] = [];
          for (const gap of gaps) {
            clock.advance(gap);
            const now = clock.now();
            const inWindow = admitted.filter((t) => t > now - WINDOW);
            const expectAllowed = inWindow.length < limit;
            const got = await rl.acquire(key, limit);
            expect(got.allowed).toBe(expectAllowed);
            if (expectAllowed) {
              admitted.push(now);
              expect(got.remaining).toBe(limit - inWindow.length - 1);
            } else {
              const blocking = inWindow[inWindow.length - limit];
              expect(got.retryAfterSec).toBe(Math.ceil((blocking + WINDOW - now) / 1000));
            }
          }
        }),
        { numRuns: propertyRuns },
      );
    });
  });
}
