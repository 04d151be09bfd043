// The reservation a request needs, the cap a budget affords it, and the splice that writes the cap
// into a passthrough body (src/core/limits/budget-output.ts, budget-splice.ts).
import { describe, expect, test } from "bun:test";
import { costOf } from "../../src/core/catalog/cost.ts";
import { defaultModels } from "../../src/core/catalog/model.ts";
import type { ChatRequest } from "../../src/core/ir.ts";
import { MIN_CAPPED_OUTPUT, UNLISTED_MAX_OUTPUT, affordableOutput, floorCost, fullCost, outputPlan, paidOutput } from "../../src/core/limits/budget-output.ts";
import { spliceMaxTokens } from "../../src/core/limits/budget-splice.ts";
import type { ModelInfo } from "../../src/plugin/api.ts";

const models = defaultModels();
const model = (id: string): ModelInfo => models.find((m) => m.id === id)!;
const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false, ...extra });
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });

describe("output plan", () => {
  test("without max_tokens the reservation covers the model's real maximum output at its catalog price", () => {
    const mini = model("gpt-4o-mini");
    const plan = outputPlan(mini, request(), 20);
    expect(plan.ceiling).toBe(mini.maxOutput!);
    expect(plan.unbounded).toBe(false);
    expect(fullCost(plan)).toBeCloseTo(costOf(mini, usage(20, mini.maxOutput!)), 12);
    expect(floorCost(plan)).toBeCloseTo(costOf(mini, usage(20, MIN_CAPPED_OUTPUT)), 12);
  });

  test("max_tokens is the ceiling; a thinking budget at or above it adds to it, as the Anthropic encoder does", () => {
    const haiku = model("claude-haiku-4-5");
    expect(outputPlan(haiku, request({ maxTokens: 300 }), 10).ceiling).toBe(300);
    const thinking = outputPlan(haiku, request({ maxTokens: 2000, reasoning: { budgetTokens: 4000 } }), 10);
    expect(thinking.ceiling).toBe(6000);
    // A cap must stay above the thinking budget, which Anthropic requires of max_tokens.
    expect(thinking.floor).toBe(4001);
  });

  test("a model nobody lists a maximum for is unbounded: Relay must set max_tokens itself", () => {
    const unlisted: ModelInfo = { id: "house-model", provider: "openai", aliases: [], routable: true, capabilities: model("gpt-4o-mini").capabilities, price: { input: 1, output: 2 } };
    const plan = outputPlan(unlisted, request(), 100);
    expect(plan).toMatchObject({ ceiling: UNLISTED_MAX_OUTPUT, unbounded: true });
    expect(fullCost(plan)).toBeCloseTo((100 * 1 + UNLISTED_MAX_OUTPUT * 2) / 1e6, 12);
    // With max_tokens it is bounded by it; a free model needs no bound.
    expect(outputPlan(unlisted, request({ maxTokens: 50 }), 100)).toMatchObject({ ceiling: 50, unbounded: false });
    expect(outputPlan({ ...unlisted, price: undefined }, request(), 100)).toMatchObject({ unbounded: false, outputUsd: 0 });
  });

  test("the affordable output never costs more than what was reserved, and is at most the ceiling", () => {
    const plan = outputPlan(model("gpt-4o-mini"), request(), 37);
    for (const usd of [0.0001, 0.000777, 0.003, 0.0098]) {
      const tokens = affordableOutput(plan, usd);
      expect(costOf(model("gpt-4o-mini"), usage(37, tokens))).toBeLessThanOrEqual(usd + 1e-15);
      expect(costOf(model("gpt-4o-mini"), usage(37, tokens + 2))).toBeGreaterThan(usd);
    }
    expect(affordableOutput(plan, 1)).toBe(plan.ceiling);
    expect(paidOutput(plan, 1)).toBeGreaterThan(plan.ceiling);
  });
});

describe("spliceMaxTokens", () => {
  test("rewrites the top-level field in the client's own bytes, leaving every other byte alone", () => {
    const raw = '{ "model": "gpt-4o-mini",  "max_tokens" : 5000, "messages": [{"role":"user","content":"\\"max_tokens\\": 5000"}], "x_extra": {"a": 1} }';
    const out = spliceMaxTokens(raw, JSON.parse(raw), "openai", 321)!;
    expect(out).toBe(raw.replace('"max_tokens" : 5000', '"max_tokens" : 321'));
  });

  test("both OpenAI field names are rewritten when both are set", () => {
    const raw = '{"model":"m","max_tokens":10,"max_completion_tokens":20,"messages":[]}';
    expect(JSON.parse(spliceMaxTokens(raw, JSON.parse(raw), "openai", 7)!)).toEqual({ model: "m", max_tokens: 7, max_completion_tokens: 7, messages: [] });
  });

  test("a body without the field gets the format's field first", () => {
    const raw = '  {"model":"m","messages":[]}';
    expect(spliceMaxTokens(raw, JSON.parse(raw), "openai", 99)).toBe('  {"max_completion_tokens":99,"model":"m","messages":[]}');
    expect(JSON.parse(spliceMaxTokens(raw, JSON.parse(raw), "anthropic", 99)!)).toEqual({ max_tokens: 99, model: "m", messages: [] });
  });

  test("the same pair nested in the body (a tool's schema default, say) is ambiguous: undefined, and the caller re-encodes", () => {
    const raw = '{"model":"m","max_tokens":64,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"n":{"max_tokens":64}}}}],"messages":[]}';
    expect(spliceMaxTokens(raw, JSON.parse(raw), "anthropic", 10)).toBeUndefined();
    // A nested pair with another value does not confuse it.
    const other = raw.replace('{"max_tokens":64}}', '{"max_tokens":65}}');
    expect(JSON.parse(spliceMaxTokens(other, JSON.parse(other), "anthropic", 10)!).max_tokens).toBe(10);
  });
});
