import { describe, expect, test } from "bun:test";
import type { ChatRequest, ToolDefinition } from "../../src/core/ir.ts";
import { approxTextTokens, estimateTextTokens, estimateTokens, estimateTokensFor, IMAGE_TOKENS } from "../../src/core/tokens.ts";

const request = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "gpt-4o",
  stream: false,
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  ...extra,
});

const weatherTool: ToolDefinition = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
};

describe("estimateTextTokens", () => {
  test("counts with o200k", () => {
    // o200k_base: "Hello" "," " world" "!" — the tiktoken reference count.
    expect(estimateTextTokens("Hello, world!")).toBe(4);
    expect(estimateTextTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
    expect(estimateTextTokens("")).toBe(0);
  });

  test("special-token markers in user text are counted, not rejected", () => {
    expect(estimateTextTokens("a <|endoftext|> b")).toBeGreaterThan(3);
  });
});

describe("estimateTokens", () => {
  test("a one-message request is its text plus framing", () => {
    const text = "Hello, world!";
    const n = estimateTokens(request(text));
    expect(n).toBeGreaterThan(estimateTextTokens(text));
    expect(n).toBeLessThan(estimateTextTokens(text) + 10);
  });

  test("grows monotonically with the text", () => {
    let previous = -1;
    for (const words of [0, 1, 10, 100, 1_000]) {
      const n = estimateTokens(request("lorem ipsum ".repeat(words)));
      expect(n).toBeGreaterThan(previous);
      previous = n;
    }
  });

  test("each image adds its fixed estimate", () => {
    const base = request("What is in this picture?");
    const image = { type: "image" as const, source: { kind: "url" as const, url: "https://example.com/cat.png" } };
    const withImages = request("", {
      messages: [{ role: "user", content: [...base.messages[0].content, image, image] }],
    });
    expect(estimateTokens(withImages)).toBe(estimateTokens(base) + 2 * IMAGE_TOKENS);
  });

  test("tool definitions count, more for bigger schemas", () => {
    const plain = estimateTokens(request("weather?"));
    const one = estimateTokens(request("weather?", { tools: [weatherTool] }));
    const two = estimateTokens(request("weather?", { tools: [weatherTool, { ...weatherTool, name: "get_forecast" }] }));
    expect(one).toBeGreaterThan(plain + estimateTextTokens(JSON.stringify(weatherTool.parameters)));
    expect(two).toBeGreaterThan(one);
  });

  test("system prompt, tool calls, tool results and JSON schemas all count", () => {
    const base = request("hi");
    expect(estimateTokens({ ...base, system: [{ type: "text", text: "You are terse." }] })).toBeGreaterThan(estimateTokens(base));
    const conversation: ChatRequest = {
      ...base,
      messages: [
        ...base.messages,
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "18°C, sunny" }] }] },
      ],
    };
    expect(estimateTokens(conversation)).toBeGreaterThan(estimateTokens(base) + 10);
    const schema = { type: "object", properties: { answer: { type: "string" } } };
    expect(estimateTokens({ ...base, responseFormat: { type: "json_schema", schema } })).toBeGreaterThan(estimateTokens(base));
  });
});

describe("which estimator serves which vendor", () => {
  const req = {
    model: "m",
    stream: false,
    system: [{ type: "text" as const, text: "You are a careful assistant. ".repeat(20) }],
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Summarise the attached report in three bullet points, please." }] }],
  };

  test("OpenAI models are counted with the o200k BPE", () => {
    expect(estimateTokensFor(req, "openai")).toBe(estimateTokens(req));
  });

  test("other vendors get the documented 3.5-characters-per-token approximation", () => {
    const chars = req.system[0]!.text.length + req.messages[0]!.content[0]!.text.length;
    const approx = estimateTokensFor(req, "anthropic");
    expect(approx).toBe(estimateTokens(req, approxTextTokens));
    // Per-message framing aside, it is the character count over 3.5, rounded up per text.
    expect(approx - Math.ceil(req.system[0]!.text.length / 3.5) - Math.ceil(req.messages[0]!.content[0]!.text.length / 3.5)).toBeLessThan(10);
    expect(approx).toBeGreaterThanOrEqual(Math.ceil(chars / 3.5));
  });
});
