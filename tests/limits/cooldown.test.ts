import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { CooldownTracker, DEFAULT_COOLDOWN_OPTIONS } from "../../src/core/limits/cooldown.ts";

function tracker(start = 1_000_000) {
  const clock = new ManualClock(start);
  return { clock, cooldown: new CooldownTracker({}, clock) };
}

describe("CooldownTracker", () => {
  test("defaults: 3 failures within 60 s cool a provider down for 120 s", () => {
    expect(DEFAULT_COOLDOWN_OPTIONS).toEqual({ failureThreshold: 3, windowMs: 60_000, cooldownMs: 120_000 });
    const { clock, cooldown } = tracker();
    expect(cooldown.recordFailure("openai", "http_500")).toBe(false);
    clock.advance(20_000);
    expect(cooldown.recordFailure("openai", "http_502")).toBe(false);
    expect(cooldown.isCooledDown("openai")).toBe(false);
    clock.advance(39_999);
    expect(cooldown.recordFailure("openai", "timeout")).toBe(true);
    expect(cooldown.isCooledDown("openai")).toBe(true);
    expect(cooldown.cooldownEndsAt("openai")).toBe(clock.now() + 120_000);
    expect(cooldown.isCooledDown("anthropic")).toBe(false);
  });

  test("failures spread beyond the window do not cool down", () => {
    const { clock, cooldown } = tracker();
    for (let i = 0; i < 10; i++) {
      cooldown.recordFailure("openai", "http_500");
      clock.advance(30_000);
    }
    expect(cooldown.isCooledDown("openai")).toBe(false);
    // A failure exactly one window old no longer counts.
    expect(cooldown.snapshot()[0].recentFailures).toBe(1);
  });

  test("the provider is available again, with a clean slate, once the cooldown elapses", () => {
    const { clock, cooldown } = tracker();
    for (let i = 0; i < 3; i++) cooldown.recordFailure("gemini", "http_503");
    const endsAt = cooldown.cooldownEndsAt("gemini")!;
    clock.set(endsAt - 1);
    expect(cooldown.isCooledDown("gemini")).toBe(true);
    clock.set(endsAt);
    expect(cooldown.isCooledDown("gemini")).toBe(false);
    expect(cooldown.cooldownEndsAt("gemini")).toBeUndefined();
    // One failure after recovery is not enough to re-cool (no half-open state).
    expect(cooldown.recordFailure("gemini", "http_503")).toBe(false);
    expect(cooldown.snapshot()[0]).toMatchObject({ state: "available", recentFailures: 1 });
  });

  test("a success resets the failure count", () => {
    const { cooldown } = tracker();
    cooldown.recordFailure("openai", "http_500");
    cooldown.recordFailure("openai", "http_500");
    cooldown.recordSuccess("openai");
    expect(cooldown.recordFailure("openai", "http_500")).toBe(false);
    expect(cooldown.isCooledDown("openai")).toBe(false);
    expect(cooldown.snapshot()[0].recentFailures).toBe(1);
  });

  test("failures and successes during a cooldown neither extend nor end it", () => {
    const { clock, cooldown } = tracker();
    for (let i = 0; i < 3; i++) cooldown.recordFailure("openai", "http_500");
    const endsAt = cooldown.cooldownEndsAt("openai");
    clock.advance(1000);
    for (let i = 0; i < 5; i++) expect(cooldown.recordFailure("openai", "http_529")).toBe(false);
    cooldown.recordSuccess("openai");
    expect(cooldown.cooldownEndsAt("openai")).toBe(endsAt);
  });

  test("options are settable at runtime", () => {
    const { clock, cooldown } = tracker();
    cooldown.setOptions({ failureThreshold: 1, cooldownMs: 5_000 });
    expect(cooldown.options).toEqual({ failureThreshold: 1, windowMs: 60_000, cooldownMs: 5_000 });
    expect(cooldown.recordFailure("ollama", "connection_error:ECONNREFUSED")).toBe(true);
    clock.advance(5_000);
    expect(cooldown.isCooledDown("ollama")).toBe(false);
    expect(() => cooldown.setOptions({ failureThreshold: 0 })).toThrow(RangeError);
    expect(() => new CooldownTracker({ windowMs: 0 })).toThrow(RangeError);
  });

  test("snapshot lists every provider seen with its state and last error", () => {
    const { clock, cooldown } = tracker();
    for (let i = 0; i < 3; i++) cooldown.recordFailure("openai", `http_50${i}`);
    const failedAt = clock.now();
    clock.advance(1000);
    cooldown.recordSuccess("anthropic");
    cooldown.recordFailure("gemini", "timeout");
    expect(cooldown.snapshot()).toEqual([
      { provider: "openai", state: "cooled_down", recentFailures: 0, cooldownEndsAt: failedAt + 120_000, lastError: "http_502", lastFailureAt: failedAt },
      { provider: "gemini", state: "available", recentFailures: 1, lastError: "timeout", lastFailureAt: failedAt + 1000 },
    ]);
  });
});
