import { describe, expect, test } from "bun:test";
import type { ChatRequest, ChatResponse, ContentBlock, StopReason } from "../../src/plugin/api.ts";
import { emptyUsage } from "../../src/core/ir.ts";
import cascade from "../../src/strategies/cascade/index.ts";
import { strategyOptionsProblem } from "../../src/plugin/options.ts";
import { judge } from "../../src/strategies/cascade/judge.ts";
import { CATALOG, chat, fakeContext, model, routeInput } from "./fakes.ts";

const response = (content: ContentBlock[], stopReason: StopReason = "end_turn"): ChatResponse => ({
  id: "r1",
  model: "m",
  content,
  stopReason,
  usage: emptyUsage(),
});
const text = (t: string): ContentBlock => ({ type: "text", text: t });
const call = (name: string, input: unknown): ContentBlock => ({ type: "tool_use", id: "c1", name, input });

const WEATHER: ChatRequest = chat("weather in Oslo?", {
  tools: [
    {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
});
const SCHEMA: ChatRequest = chat("who?", {
  responseFormat: {
    type: "json_schema",
    schema: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] },
  },
});
const JSON_MODE: ChatRequest = chat("colours as json", { responseFormat: { type: "json" } });
const PLAIN = chat("What is the capital of France?");

describe("judge rejects", () => {
  test.each<[string, ChatResponse, ChatRequest, string]>([
    ["empty answer", response([]), PLAIN, "empty answer"],
    ["whitespace only", response([text("  \n ")]), PLAIN, "empty answer"],
    ["truncated", response([text("Paris is the capital and")], "max_tokens"), PLAIN, "truncated: max_tokens"],
    ["refusal", response([text("No.")], "refusal"), PLAIN, "refusal"],
    ["content filter", response([], "content_filter"), PLAIN, "content filtered"],
    ["hedge: not sure", response([text("I'm not sure, maybe Lyon?")]), PLAIN, "uncertain answer"],
    ["hedge: curly apostrophe", response([text("I don’t know.")]), PLAIN, "uncertain answer"],
    ["hedge: as an AI", response([text("As an AI, I cannot determine capitals.")]), PLAIN, "uncertain answer"],
    ["hedge: unable", response([text("I AM UNABLE TO answer that.")]), PLAIN, "uncertain answer"],
    ["invalid JSON", response([text("{name: 'Ada'}")]), JSON_MODE, "invalid JSON"],
    ["JSON prose", response([text("Sure! Here it is: {\"a\": 1}")]), JSON_MODE, "invalid JSON"],
    ["schema keys missing", response([text('{"name": "Ada"}')]), SCHEMA, "JSON missing required keys: age"],
    ["schema expects object", response([text("[1, 2]")]), SCHEMA, "JSON missing required keys: name, age"],
    ["unknown tool", response([call("get_time", {})], "tool_use"), WEATHER, "unknown tool: get_time"],
    ["tool without tools offered", response([call("get_weather", { city: "Oslo" })], "tool_use"), PLAIN, "unknown tool: get_weather"],
    ["tool input not an object", response([call("get_weather", "Oslo")], "tool_use"), WEATHER, "tool get_weather: input is not an object"],
    ["tool input is an array", response([call("get_weather", ["Oslo"])], "tool_use"), WEATHER, "tool get_weather: input is not an object"],
    ["missing required param", response([call("get_weather", { town: "Oslo" })], "tool_use"), WEATHER, "tool get_weather: missing required params: city"],
  ])("%s", (_, res, req, reason) => {
    expect(judge(res, req)).toEqual({ accept: false, reason });
  });
});

describe("judge accepts", () => {
  test.each<[string, ChatResponse, ChatRequest]>([
    ["plain answer", response([text("Paris.")]), PLAIN],
    ["valid tool call", response([call("get_weather", { city: "Oslo" })], "tool_use"), WEATHER],
    ["text plus tool call", response([text("Checking."), call("get_weather", { city: "Oslo" })], "tool_use"), WEATHER],
    ["valid JSON mode answer", response([text(' {"colours": ["red"]} ')]), JSON_MODE],
    ["schema satisfied", response([text('{"name": "Ada", "age": 36}')]), SCHEMA],
    ["stop sequence", response([text("Paris")], "stop_sequence"), PLAIN],
    [
      "a long answer that hedges once",
      response([text(`I'm not sure anyone agrees, but here is the full history. ${"Paris became the capital long ago. ".repeat(30)}`)]),
      PLAIN,
    ],
  ])("%s", (_, res, req) => {
    expect(judge(res, req)).toEqual({ accept: true });
  });
});

describe("cascade plugin", () => {
  test("declares svc:cascade and exposes the judge", () => {
    expect(cascade.models).toEqual(["svc:cascade"]);
    expect(cascade.judge).toBe(judge);
  });

  test("default chain goes cheapest first with two escalations", async () => {
    const result = await cascade.plan(routeInput("svc:cascade", PLAIN), fakeContext(CATALOG));
    expect(result).toMatchObject({
      mode: "cascade",
      maxEscalations: 2,
      candidates: ["anthropic:claude-haiku-4-5", "anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-5"],
    });
  });

  test("configured chain skips unavailable and incapable models", async () => {
    const catalog = [...CATALOG, model({ id: "blind", provider: "acme", capabilities: { vision: false } })];
    const req = chat("describe");
    req.messages[0].content.push({ type: "image", source: { kind: "base64", mediaType: "image/png", data: "AA==" } });
    const options = { chain: ["acme:blind", "gpt-5-nano", "claude-sonnet-4-5", "gpt-5"], maxEscalations: 1 };
    const result = await cascade.plan(routeInput("svc:cascade", req), fakeContext(catalog, options, ["anthropic"]));
    expect(result.candidates).toEqual(["openai:gpt-5-nano", "openai:gpt-5"]);
    expect(result.maxEscalations).toBe(1);
    expect(result.reasons).toContain("needs: vision");
  });

  // Checked when options come into force (start, reload, /control/config), not per request: tests/plugins/options.test.ts.
  test("invalid options fail with a message naming the option", () => {
    expect(strategyOptionsProblem(cascade, { chain: [] })?.path).toBe("routing.strategies.cascade.chain");
    expect(strategyOptionsProblem(cascade, { maxEscalations: -1 })?.path).toBe("routing.strategies.cascade.maxEscalations");
    expect(strategyOptionsProblem(cascade, { chain: 5 })).toEqual({ path: "routing.strategies.cascade.chain", message: "expected array" });
  });
});
