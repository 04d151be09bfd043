// The stream guard of a budgeted run (src/core/limits/budget-stream.ts): it counts what a stream
// outputs, asks for more room past the reservation, and ends the stream when there is none.
import { describe, expect, test } from "bun:test";
import { defaultModels } from "../../src/core/catalog/model.ts";
import type { ChatRequest, StreamEvent } from "../../src/core/ir.ts";
import { fullCost, outputPlan } from "../../src/core/limits/budget-output.ts";
import { StreamBudget, type StreamRoom } from "../../src/core/limits/budget-stream.ts";

const mini = defaultModels().find((m) => m.id === "gpt-4o-mini")!;
const request: ChatRequest = { model: "gpt-4o-mini", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: true, maxTokens: 1000 };
const plan = outputPlan(mini, request, 20);
const text = (chars: number): StreamEvent => ({ type: "text_delta", index: 0, text: "x".repeat(chars) });

/** A budget with `left` USD beyond the reservation; `later` answers the way a shared store does. */
function room(left: number, later = false) {
  let reserved = fullCost(plan);
  const asked: number[] = [];
  const r = {
    asked,
    reservedUsd: () => reserved,
    extend(usd: number): boolean | Promise<boolean> {
      asked.push(usd);
      const ok = usd <= left;
      if (ok) {
        left -= usd;
        reserved += usd;
      }
      return later ? Promise.resolve(ok) : ok;
    },
  } satisfies StreamRoom & { asked: number[] };
  return r;
}

/** Feed `events` until the guard answers; the index of the event that ended the stream, or -1. */
function feed(guard: StreamBudget, events: StreamEvent[]): number {
  return events.findIndex((ev) => guard.check(ev) !== undefined);
}

describe("stream budget guard", () => {
  test("an honest stream up to its max_tokens, even of dense text at 6 characters a token, never asks for more", () => {
    const r = room(0);
    const guard = new StreamBudget(plan, r);
    // The 1,000 tokens the reservation pays for, of 6 characters each.
    expect(feed(guard, Array.from({ length: 1000 }, () => text(6)))).toBe(-1);
    expect(r.asked).toEqual([]);
  });

  test("past its reservation with nothing left, the stream is ended on the event that passes it", () => {
    const guard = new StreamBudget(plan, room(0));
    // Counted at 6 characters a token, the 1,000 reserved tokens are 6,000 characters: the 61st chunk of 100 passes them.
    const ended = feed(guard, Array.from({ length: 200 }, () => text(100)));
    expect(ended).toBe(60);
    expect(guard.refused).toContain("budget_exceeded");
    // What it streamed is what it cost, guessed at 4 characters a token.
    expect(guard.tokens()).toBe(1525);
    expect(guard.spentUsd()).toBeCloseTo(plan.inputUsd + 1525 * plan.outputUsd, 12);
  });

  test("while the budget has room the stream gets more in steps, then is ended when the room runs out", () => {
    // ~660 more tokens of gpt-4o-mini: steps of a quarter of what is held (273, then 319 tokens) fit, the third does not.
    const r = room(0.0004);
    const guard = new StreamBudget(plan, r);
    const ended = feed(guard, Array.from({ length: 400 }, () => text(100)));
    expect(r.asked).toHaveLength(3);
    expect(ended).toBeGreaterThan(90);
    expect(ended).toBeLessThan(100);
  });

  test("a shared store's late answer: the stream runs on while it is asked, and ends after a refusal", async () => {
    const r = room(0, true);
    const guard = new StreamBudget(plan, r);
    expect(feed(guard, Array.from({ length: 70 }, () => text(100)))).toBe(-1);
    expect(r.asked).toHaveLength(1); // asked once, not per event
    await Promise.resolve();
    await Promise.resolve();
    expect(guard.check(text(1))).toContain("budget_exceeded");
  });

  test("the vendor's own usage figures count as well as the text", () => {
    const guard = new StreamBudget(plan, room(0));
    const finish: StreamEvent = { type: "finish", stopReason: "max_tokens", usage: { inputTokens: 20, outputTokens: 5000, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    expect(guard.check(finish)).toContain("budget_exceeded");
    expect(guard.tokens()).toBe(5000);
  });
});
