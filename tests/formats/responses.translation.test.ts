// Responses ↔ Anthropic through the one IR: a Responses client's request as Anthropic receives
// it, an Anthropic client's request as a Responses vendor receives it, and answers (whole and
// streamed) carried back the other way.
import { describe, expect, test } from "bun:test";
import { codecFor } from "../../src/core/formats/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import type { StreamEvent } from "../../src/core/ir.ts";
import { assemble, decodeSse, sseEvents } from "./responses.helpers.ts";

const responses = codecFor("responses");
const anthropic = codecFor("anthropic");
const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("a Responses client served by Anthropic", () => {
  test("the request: instructions, items, tools and reasoning", () => {
    const ir = responses.decodeRequest({
      model: "claude-sonnet-4-5",
      instructions: "Be brief.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }, { type: "input_image", image_url: "data:image/png;base64,iVBOR" }] },
        { type: "reasoning", summary: [{ type: "summary_text", text: "Use the tool." }], encrypted_content: "sig-from-anthropic" },
        { type: "function_call", call_id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "toolu_1", output: "18C" },
      ],
      tools: [{ type: "function", name: "weather", description: "Weather now", parameters: schema }, { type: "web_search" }],
      tool_choice: "auto",
      max_output_tokens: 2000,
      reasoning: { effort: "low", summary: "auto" },
      store: false,
    });
    // As the vendor call does: unmapped members go only to a vendor of the same format.
    const { body, dropped } = anthropic.encodeRequest({ ...ir, extra: undefined }, { model: "claude-sonnet-4-5", defaultMaxTokens: 4096 });
    expect(dropped).toEqual([]);
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: "Be brief.",
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Use the tool.", signature: "sig-from-anthropic" },
            { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "18C" }] }] },
      ],
      tools: [{ name: "weather", description: "Weather now", input_schema: schema }],
      tool_choice: { type: "auto" },
    });
    // Hosted tools and Responses-only members are what the vendor call reports as dropped.
    expect(Object.keys(ir.extra ?? {}).sort()).toEqual(["reasoning.summary", "tools"]);
    expect(ir.store).toBe(false);
  });

  test("the whole answer, as a Responses client reads it", () => {
    const res = anthropic.decodeResponse({
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "thinking", thinking: "Call it.", signature: "sig" },
        { type: "tool_use", id: "toolu_2", name: "weather", input: { city: "Rome" } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 },
    });
    const body = responses.encodeResponse(res, { model: "claude-sonnet-4-5" }) as Record<string, any>;
    expect(body.output.map((o: any) => o.type)).toEqual(["reasoning", "function_call"]);
    expect(body.output[1]).toMatchObject({ call_id: "toolu_2", name: "weather", arguments: '{"city":"Rome"}' });
    expect(body.usage).toMatchObject({ input_tokens: 45, input_tokens_details: { cached_tokens: 30 }, output_tokens: 20 });
    // The next turn carries the signature back to Anthropic unchanged.
    const next = responses.decodeRequest({ model: "m", input: [body.output[0], body.output[1], { type: "function_call_output", call_id: "toolu_2", output: "21C" }] });
    const turn = anthropic.encodeRequest(next, { model: "m", defaultMaxTokens: 1024 }).body.messages as any[];
    expect(turn[0].content[0]).toEqual({ type: "thinking", thinking: "Call it.", signature: "sig" });
  });

  test("the stream: Anthropic SSE in, the Responses event sequence out", () => {
    const ir: StreamEvent[] = [
      { type: "start", id: "msg_02", model: "claude-sonnet-4-5", usage: { inputTokens: 9 } },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Checking " },
      { type: "text_delta", index: 0, text: "Paris." },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_use", id: "toolu_3", name: "weather" } },
      { type: "tool_args_delta", index: 1, json: '{"city":"Paris"}' },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: "tool_use", usage: { inputTokens: 9, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ];
    const vendorEncoder = anthropic.streamEncoder({ model: "claude-sonnet-4-5" });
    const vendorSse = ir.map((e) => vendorEncoder.encode(e)).join("") + vendorEncoder.end();
    const parser = new SseParser();
    const decoder = anthropic.streamDecoder();
    const clientEncoder = responses.streamEncoder({ model: "claude-sonnet-4-5" });
    const raws = [...parser.push(vendorSse), ...parser.end()];
    const clientSse = [...raws.flatMap((r) => decoder.push(r)), ...decoder.end()].map((e) => clientEncoder.encode(e)).join("") + clientEncoder.end();

    const types = sseEvents(clientSse).map((e) => e.data.type);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_text.delta");
    expect(types).toContain("response.function_call_arguments.delta");
    expect(types[types.length - 1]).toBe("response.completed");
    expect(assemble(decodeSse(clientSse))).toMatchObject({
      content: [
        { type: "text", text: "Checking Paris." },
        { type: "tool_use", id: "toolu_3", name: "weather", input: { city: "Paris" } },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 9, outputTokens: 14 },
    });
  });
});

describe("an Anthropic client served by a Responses vendor", () => {
  test("the request: system, tool turns, images, thinking budget and token limit", () => {
    const ir = anthropic.decodeRequest({
      model: "gpt-5",
      max_tokens: 1000,
      system: "Be brief.",
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [{ name: "weather", description: "Weather now", input_schema: schema }],
      tool_choice: { type: "tool", name: "weather" },
      messages: [
        { role: "user", content: [{ type: "text", text: "Paris?" }, { type: "image", source: { type: "url", url: "https://x.test/p.png" } }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18C" }, { type: "text", text: "And Rome?" }] },
      ],
    });
    const { body, dropped } = responses.encodeRequest(ir, { model: "gpt-5" });
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      model: "gpt-5",
      instructions: "Be brief.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Paris?" }, { type: "input_image", image_url: "https://x.test/p.png", detail: "auto" }] },
        { type: "function_call", call_id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "toolu_1", output: "18C" },
        { role: "user", content: [{ type: "input_text", text: "And Rome?" }] },
      ],
      max_output_tokens: 1000,
      tools: [{ type: "function", name: "weather", description: "Weather now", parameters: schema }],
      tool_choice: { type: "function", name: "weather" },
      reasoning: { effort: "medium" },
    });
  });

  test("the whole answer and the stream, as an Anthropic client reads them", () => {
    const res = responses.decodeResponse({
      id: "resp_7",
      model: "gpt-5",
      status: "completed",
      output: [
        { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Think." }], encrypted_content: "enc" },
        { id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text: "It is 18C.", annotations: [] }] },
        { id: "ws_1", type: "web_search_call", status: "completed" },
      ],
      usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 40 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 4 } },
    });
    const body = anthropic.encodeResponse(res, { model: "gpt-5" }) as Record<string, any>;
    expect(body.content).toEqual([
      { type: "thinking", thinking: "Think.", signature: "enc" },
      { type: "text", text: "It is 18C." },
    ]);
    expect(body).toMatchObject({ stop_reason: "end_turn", usage: { input_tokens: 10, cache_read_input_tokens: 40, output_tokens: 9 } });

    const sse = responses.streamEncoder({ model: "gpt-5" });
    const events: StreamEvent[] = [
      { type: "start", id: "resp_8", model: "gpt-5" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Hi" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: "end_turn", usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ];
    const vendorSse = events.map((e) => sse.encode(e)).join("");
    const toClient = anthropic.streamEncoder({ model: "gpt-5" });
    const clientSse = decodeSse(vendorSse).map((e) => toClient.encode(e)).join("") + toClient.end();
    expect(clientSse).toContain("event: message_start");
    expect(clientSse).toContain('"text":"Hi"');
    expect(clientSse).toContain('"stop_reason":"end_turn"');
  });
});
