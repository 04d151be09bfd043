import { describe, expect, test } from "bun:test";
import fallback from "../../src/strategies/fallback/index.ts";
import { strategyOptionsProblem } from "../../src/plugin/options.ts";
import { CATALOG, chat, fakeContext, routeInput } from "./fakes.ts";

const plan = (requested: string, ...ctx: Parameters<typeof fakeContext>) =>
  fallback.plan(routeInput(requested, chat("hi")), fakeContext(...ctx));

describe("fallback plugin", () => {
  test("has no virtual models", () => {
    expect("models" in fallback).toBe(false);
  });

  test("requested model first, then its chain", async () => {
    const options = { chains: { "claude-sonnet-4-5": ["gpt-5-mini", "claude-haiku-4-5"] }, default: ["gpt-5"] };
    const result = await plan("claude-sonnet-4-5", CATALOG, options);
    expect(result).toMatchObject({ mode: "fallback", candidates: ["claude-sonnet-4-5", "gpt-5-mini", "claude-haiku-4-5"] });
  });

  test("the default chain applies to models without their own", async () => {
    const result = await plan("gpt-5-nano", CATALOG, { chains: { "claude-sonnet-4-5": ["gpt-5"] }, default: ["claude-haiku-4-5"] });
    expect(result.candidates).toEqual(["gpt-5-nano", "claude-haiku-4-5"]);
  });

  test("no chain at all leaves just the requested model", async () => {
    const result = await plan("gpt-5", CATALOG);
    expect(result.candidates).toEqual(["gpt-5"]);
    expect(result.reasons).toEqual(["no fallback chain for gpt-5"]);
  });

  test("no chain and the model unavailable: still the requested model, and the reason says so", async () => {
    const result = await plan("claude-sonnet-4-5", CATALOG, {}, ["anthropic"]);
    expect(result.candidates).toEqual(["claude-sonnet-4-5"]);
    expect(result.reasons).toEqual(["no fallback chain for claude-sonnet-4-5", "unavailable, tried last: claude-sonnet-4-5"]);
  });

  test("no chain and an unknown model: kept for the router to report", async () => {
    const result = await plan("mystery-model", CATALOG);
    expect(result).toMatchObject({ candidates: ["mystery-model"], reasons: ["no fallback chain for mystery-model"] });
  });

  test("duplicates are removed, including two spellings of one model", async () => {
    const options = { default: ["gpt-5", "openai:gpt-5", "claude-haiku-4-5", "gpt-5-mini", "claude-haiku-4-5"] };
    const result = await plan("gpt-5", CATALOG, options);
    expect(result.candidates).toEqual(["gpt-5", "claude-haiku-4-5", "gpt-5-mini"]);
  });

  test("unavailable models move to the end instead of being dropped", async () => {
    const options = { default: ["claude-haiku-4-5", "gpt-5-mini", "claude-opus-4-5"] };
    const result = await plan("claude-sonnet-4-5", CATALOG, options, ["anthropic"]);
    expect(result.candidates).toEqual(["gpt-5-mini", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5"]);
    expect(result.reasons).toContain("unavailable, tried last: claude-sonnet-4-5, claude-haiku-4-5, claude-opus-4-5");
  });

  test("unknown model names are kept for the router to report", async () => {
    const result = await plan("mystery-model", CATALOG, { default: ["gpt-5"] });
    expect(result.candidates).toEqual(["mystery-model", "gpt-5"]);
  });

  // Checked when options come into force (start, reload, /control/config), not per request: tests/plugins/options.test.ts.
  test("invalid options fail with a message naming the option", () => {
    expect(strategyOptionsProblem(fallback, { chains: { "gpt-5": "gpt-5-mini" } })?.path).toBe("routing.strategies.fallback.chains.gpt-5");
    expect(strategyOptionsProblem(fallback, { chains: { "gpt-4.1": ["x", 1] } })?.path).toBe('routing.strategies.fallback.chains["gpt-4.1"][1]');
    expect(strategyOptionsProblem(fallback, { default: [1] })?.path).toBe("routing.strategies.fallback.default[0]");
  });
});
