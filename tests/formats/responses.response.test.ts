// Whole Responses answers ↔ IR: output items, statuses and stop reasons, usage details.
import { describe, expect, test } from "bun:test";
import { responseId, responsesCodec } from "../../src/core/formats/responses/index.ts";
import type { ChatResponse } from "../../src/core/ir.ts";

const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 170 };

describe("responses response decode", () => {
  test("usage keeps cached and reasoning tokens; input excludes the cached ones", () => {
    const res = responsesCodec.decodeResponse({ id: "resp_1", model: "gpt-5", status: "completed", output: [], usage });
    expect(res.usage).toEqual({ inputTokens: 20, outputTokens: 50, cacheReadTokens: 100, cacheWriteTokens: 0, reasoningTokens: 20 });
  });

  test.each([
    [{ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }, "max_tokens"],
    [{ status: "incomplete", incomplete_details: { reason: "content_filter" } }, "content_filter"],
    [{ status: "failed" }, "error"],
    [{ status: "completed", output: [{ type: "message", content: [{ type: "refusal", refusal: "No." }] }] }, "refusal"],
    [{ status: "completed", output: [{ type: "function_call", call_id: "c", name: "f", arguments: "{}" }] }, "tool_use"],
  ])("%j → %s", (fields, reason) => {
    expect(responsesCodec.decodeResponse({ output: [], ...fields }).stopReason).toBe(reason as ChatResponse["stopReason"]);
  });

  test("a malformed output item is a decoding error", () => {
    expect(() => responsesCodec.decodeResponse({ output: [{ type: "function_call", call_id: "c", name: "f", arguments: "{" }] })).toThrow("output[0].arguments is not valid JSON");
    expect(() => responsesCodec.decodeResponse({ choices: [] })).toThrow("output must be array");
  });
});

describe("responses response encode", () => {
  const res: ChatResponse = {
    id: "msg_01",
    model: "claude-x",
    created: 1700000000,
    content: [
      { type: "thinking", text: "Hmm.", signature: "sig" },
      { type: "text", text: "Calling." },
      { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
      { type: "opaque", format: "anthropic", value: { type: "server_tool_use" } },
    ],
    stopReason: "tool_use",
    usage: { inputTokens: 20, outputTokens: 50, cacheReadTokens: 100, cacheWriteTokens: 0, reasoningTokens: 20 },
  };

  test("a response object with output items and usage; another format's opaque blocks are left out", () => {
    const body = responsesCodec.encodeResponse(res, { model: "claude-x" }) as Record<string, any>;
    expect(body).toMatchObject({ id: "resp_msg_01", object: "response", created_at: 1700000000, status: "completed", error: null, incomplete_details: null, model: "claude-x", usage });
    expect(body.output).toEqual([
      { id: expect.stringMatching(/^rs_/), type: "reasoning", summary: [{ type: "summary_text", text: "Hmm." }], encrypted_content: "sig" },
      { id: expect.stringMatching(/^msg_/), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Calling.", annotations: [] }] },
      { id: expect.stringMatching(/^fc_/), type: "function_call", status: "completed", arguments: '{"a":1}', call_id: "toolu_1", name: "f" },
    ]);
    const again = responsesCodec.decodeResponse(body);
    expect(again).toEqual({ ...res, id: "resp_msg_01", content: res.content.slice(0, 3) });
  });

  test("statuses: a token limit is incomplete, a refusal a refusal part", () => {
    expect(responsesCodec.encodeResponse({ ...res, stopReason: "max_tokens" }, { model: "m" })).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    const refused = responsesCodec.encodeResponse({ ...res, content: [{ type: "text", text: "No." }], stopReason: "refusal" }, { model: "m" }) as Record<string, any>;
    expect(refused.output[0].content).toEqual([{ type: "refusal", refusal: "No." }]);
    expect(responsesCodec.decodeResponse(refused).stopReason).toBe("refusal");
  });

  test("ids: resp_ ids are kept, others prefixed, none made up", () => {
    expect(responseId("resp_abc")).toBe("resp_abc");
    expect(responseId("chatcmpl-1")).toBe("resp_chatcmpl-1");
    expect(responseId("")).toMatch(/^resp_[0-9a-f]{48}$/);
  });
});
