import { describe, expect, test } from "bun:test";
import type { ChatResponse, StopReason } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";

const response = (over: Partial<ChatResponse>): ChatResponse => ({
  id: "msg_01XYZ",
  model: "claude-x",
  content: [{ type: "text", text: "Hello" }],
  stopReason: "end_turn",
  usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 80, cacheWriteTokens: 20 },
  created: 1700000000,
  ...over,
});

describe("response encoding", () => {
  test("a full chat.completion with tool calls, reasoning and cache-inclusive prompt tokens", () => {
    const body = openaiCodec.encodeResponse(
      response({
        content: [
          { type: "thinking", text: "Plan", signature: "sig" },
          { type: "text", text: "Let me " },
          { type: "text", text: "check." },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } },
        ],
        stopReason: "tool_use",
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 80, cacheWriteTokens: 20, reasoningTokens: 2 },
      }),
      { model: "gpt-4o" },
    );
    expect(body).toEqual({
      id: "msg_01XYZ",
      object: "chat.completion",
      created: 1700000000,
      model: "gpt-4o",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Let me check.",
            reasoning_content: "Plan",
            tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 110,
        completion_tokens: 5,
        total_tokens: 115,
        prompt_tokens_details: { cached_tokens: 80 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    });
    expect(body).not.toHaveProperty("system_fingerprint");
  });

  test("a refusal goes into message.refusal with finish_reason stop, and decodes back as a refusal", () => {
    const body = openaiCodec.encodeResponse(
      response({ content: [{ type: "text", text: "I can't help with that." }], stopReason: "refusal" }),
      { model: "gpt-4o" },
    );
    const choice = (body.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0];
    expect(choice.message).toEqual({ role: "assistant", content: null, refusal: "I can't help with that." });
    expect(choice.finish_reason).toBe("stop");
    const back = openaiCodec.decodeResponse(body);
    expect(back.stopReason).toBe("refusal");
    expect(back.content).toEqual([{ type: "text", text: "I can't help with that." }]);
  });

  const finishReasons: Array<[StopReason, string]> = [
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["content_filter", "content_filter"],
    ["pause_turn", "stop"],
    ["error", "stop"],
  ];
  for (const [stopReason, finish] of finishReasons) {
    test(`stop reason ${stopReason} is finish_reason ${finish}`, () => {
      const body = openaiCodec.encodeResponse(response({ stopReason }), { model: "m" });
      expect((body.choices as Array<{ finish_reason: string }>)[0].finish_reason).toBe(finish);
    });
  }

  test("ids: vendor-prefixed ids are kept, bare ids get chatcmpl-, empty ids are generated", () => {
    const idOf = (id: string) => openaiCodec.encodeResponse(response({ id }), { model: "m" }).id as string;
    expect(idOf("chatcmpl-abc")).toBe("chatcmpl-abc");
    expect(idOf("msg_01XYZ")).toBe("msg_01XYZ");
    expect(idOf("945bb10c-9bf3-47ff")).toBe("chatcmpl-945bb10c-9bf3-47ff");
    expect(idOf("a4e29c5b82f94d67")).toBe("chatcmpl-a4e29c5b82f94d67");
    expect(idOf("")).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
  });

  test("a tool-only answer has null content", () => {
    const body = openaiCodec.encodeResponse(
      response({ content: [{ type: "tool_use", id: "c", name: "f", input: {} }], stopReason: "tool_use" }),
      { model: "m" },
    );
    expect((body.choices as Array<{ message: { content: unknown } }>)[0].message.content).toBeNull();
  });
});

describe("response decoding", () => {
  test("content_filter and function_call finish reasons", () => {
    const decode = (finish_reason: string) =>
      openaiCodec.decodeResponse({ id: "x", model: "m", choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason }] })
        .stopReason;
    expect(decode("content_filter")).toBe("content_filter");
    expect(decode("function_call")).toBe("tool_use");
    expect(decode("stop")).toBe("end_turn");
  });

  test("a response without choices is a CodecError", () => {
    expect(() => openaiCodec.decodeResponse({ error: { message: "boom" } })).toThrow(CodecError);
  });

  test("unparsable tool arguments in a response name their path", () => {
    let caught: unknown;
    try {
      openaiCodec.decodeResponse({
        choices: [
          {
            message: { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{bad" } }] },
            finish_reason: "tool_calls",
          },
        ],
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CodecError);
    expect((caught as CodecError).parameter).toBe("choices[0].message.tool_calls[0].function.arguments");
  });
});
