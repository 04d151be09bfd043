import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { StreamEvent, Usage } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import { assemble, decodeSse, encodeEvents, sseOf } from "./openai.helpers.ts";

const base = { id: "chatcmpl-test", object: "chat.completion.chunk", created: 1700000000, model: "gpt-test" };
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  ...base,
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const toolDelta = (calls: Array<Record<string, unknown>>) => delta({ tool_calls: calls });
const usageChunk = (prompt: number, completion: number, cached = 0) => ({
  ...base,
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, prompt_tokens_details: { cached_tokens: cached } },
});

const count = (events: StreamEvent[], type: StreamEvent["type"]) => events.filter((e) => e.type === type).length;

describe("stream decoding", () => {
  test("two interleaved parallel tool calls keep their arguments apart", () => {
    const events = decodeSse(
      sseOf([
        delta({ role: "assistant", content: "Checking both." }),
        toolDelta([{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }]),
        toolDelta([{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: '{"tz' } }]),
        toolDelta([{ index: 0, function: { arguments: '{"city":' } }]),
        toolDelta([{ index: 1, function: { arguments: '":"CET"' } }]),
        // Both calls advancing in one chunk.
        toolDelta([
          { index: 0, function: { arguments: '"Paris"}' } },
          { index: 1, function: { arguments: "}" } },
        ]),
        delta({}, "tool_calls"),
        usageChunk(50, 20),
      ]),
    );
    const res = assemble(events);
    expect(res.content).toEqual([
      { type: "text", text: "Checking both." },
      { type: "tool_use", id: "call_a", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_b", name: "get_time", input: { tz: "CET" } },
    ]);
    // The text block closes as soon as the first tool call opens.
    const stopText = events.findIndex((e) => e.type === "block_stop" && e.index === 0);
    const startTool = events.findIndex((e) => e.type === "block_start" && e.index === 1);
    expect(stopText).toBeLessThan(startTool);
    expect(res.stopReason).toBe("tool_use");
    expect(res.usage).toEqual({ inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("finish waits for the include_usage chunk and is emitted once", () => {
    const decoder = openaiCodec.streamDecoder();
    const push = (c: unknown) => decoder.push({ data: JSON.stringify(c) });
    expect(push(delta({ role: "assistant", content: "Hi" })).map((e) => e.type)).toEqual([
      "start",
      "block_start",
      "text_delta",
    ]);
    expect(push(delta({}, "stop")).map((e) => e.type)).toEqual(["block_stop"]);
    expect(push(usageChunk(100, 5, 60))).toEqual([
      {
        type: "finish",
        stopReason: "end_turn",
        usage: { inputTokens: 40, outputTokens: 5, cacheReadTokens: 60, cacheWriteTokens: 0 },
      },
    ]);
    expect(decoder.push({ data: "[DONE]" })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  test("without a usage chunk, finish comes at [DONE] with zero usage", () => {
    const events = decodeSse(sseOf([delta({ content: "Hi" }), delta({}, "length")]));
    expect(count(events, "finish")).toBe(1);
    expect(events.at(-1)).toEqual({
      type: "finish",
      stopReason: "max_tokens",
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  test("an error chunk becomes an error event and ends the stream", () => {
    const decoder = openaiCodec.streamDecoder();
    decoder.push({ data: JSON.stringify(delta({ content: "partial" })) });
    const events = decoder.push({
      data: JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit_error", code: 429 } }),
    });
    expect(events).toEqual([
      {
        type: "error",
        error: { kind: "rate_limit", status: 429, message: "Rate limit reached", vendorType: "rate_limit_error" },
      },
    ]);
    expect(decoder.push({ data: JSON.stringify(delta({ content: "more" })) })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  test("a stream cut off before finish_reason closes its blocks and reports an error", () => {
    const decoder = openaiCodec.streamDecoder();
    decoder.push({ data: JSON.stringify(delta({ content: "half an ans" })) });
    const events = decoder.end();
    expect(events[0]).toEqual({ type: "block_stop", index: 0 });
    expect(events[1]).toMatchObject({ type: "error", error: { kind: "api_error", status: 502 } });
    expect(count(events, "finish")).toBe(0);
  });

  test("a chunk that is not JSON is reported, not thrown", () => {
    const events = openaiCodec.streamDecoder().push({ data: "{not json" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", error: { kind: "api_error" } });
  });

  test("streamed refusal text ends with stop reason refusal", () => {
    const res = assemble(
      decodeSse(sseOf([delta({ role: "assistant", refusal: "I can't help" }), delta({ refusal: " with that." }), delta({}, "stop")])),
    );
    expect(res.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(res.stopReason).toBe("refusal");
  });
});

/** Parses our own encoder output back into chunk objects. */
function chunksOf(sse: string): Array<Record<string, unknown> | "[DONE]"> {
  const parser = new SseParser();
  return [...parser.push(sse), ...parser.end()].map((r) => (r.data === "[DONE]" ? "[DONE]" : JSON.parse(r.data)));
}

const usage: Usage = { inputTokens: 10, outputTokens: 30, cacheReadTokens: 90, cacheWriteTokens: 0, reasoningTokens: 12 };
const irStream: StreamEvent[] = [
  { type: "start", id: "msg_01ABC", model: "claude-x" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Two lookups." },
  { type: "signature_delta", index: 0, signature: "sig" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "On it." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_use", id: "toolu_1", name: "weather" } },
  { type: "tool_args_delta", index: 2, json: '{"city":"Oslo"}' },
  { type: "block_stop", index: 2 },
  { type: "block_start", index: 3, block: { type: "tool_use", id: "toolu_2", name: "time" } },
  { type: "tool_args_delta", index: 3, json: "{}" },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: "tool_use", usage },
];

describe("stream encoding", () => {
  test("chunks share id, created, model and object; the first delta carries the role", () => {
    const chunks = chunksOf(encodeEvents(irStream, { model: "gpt-4o", includeUsage: true }));
    expect(chunks.at(-1)).toBe("[DONE]");
    const objects = chunks.filter((c): c is Record<string, unknown> => c !== "[DONE]");
    expect(new Set(objects.map((c) => `${c.id}|${c.created}|${c.model}|${c.object}`)).size).toBe(1);
    expect(objects[0]).toMatchObject({ id: "msg_01ABC", model: "gpt-4o", object: "chat.completion.chunk" });
    expect(objects[0].choices).toEqual([
      { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
    ]);
    expect(objects.slice(1).some((c) => JSON.stringify(c).includes('"role"'))).toBe(false);
  });

  test("tool calls are numbered among tool blocks only, the first fragment naming the call", () => {
    const chunks = chunksOf(encodeEvents(irStream, { model: "gpt-4o" }));
    const toolDeltas = chunks.flatMap((c) =>
      c === "[DONE]" ? [] : ((c.choices as Array<{ delta: { tool_calls?: unknown[] } }>)[0]?.delta.tool_calls ?? []),
    );
    expect(toolDeltas).toEqual([
      { index: 0, id: "toolu_1", type: "function", function: { name: "weather", arguments: "" } },
      { index: 0, function: { arguments: '{"city":"Oslo"}' } },
      { index: 1, id: "toolu_2", type: "function", function: { name: "time", arguments: "" } },
      { index: 1, function: { arguments: "{}" } },
    ]);
  });

  test("thinking is sent as reasoning_content, finish as an empty delta with finish_reason", () => {
    const chunks = chunksOf(encodeEvents(irStream, { model: "gpt-4o" }));
    const deltas = chunks.flatMap((c) => (c === "[DONE]" ? [] : (c.choices as Array<Record<string, unknown>>)));
    expect(deltas.map((d) => d.delta)).toContainEqual({ reasoning_content: "Two lookups." });
    expect(deltas.at(-1)).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" });
  });

  test("include_usage adds a final chunk with empty choices and prompt tokens including cache", () => {
    const withUsage = chunksOf(encodeEvents(irStream, { model: "gpt-4o", includeUsage: true }));
    expect(withUsage.at(-2)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 30,
        total_tokens: 130,
        prompt_tokens_details: { cached_tokens: 90 },
        completion_tokens_details: { reasoning_tokens: 12 },
      },
    });
    const without = chunksOf(encodeEvents(irStream, { model: "gpt-4o" }));
    expect(without.some((c) => c !== "[DONE]" && "usage" in c)).toBe(false);
  });

  test("an error event becomes an OpenAI error frame", () => {
    const encoder = openaiCodec.streamEncoder({ model: "gpt-4o" });
    const frame = encoder.encode({
      type: "error",
      error: { kind: "overloaded", status: 529, message: "Overloaded", vendorType: "overloaded_error" },
    });
    expect(frame.startsWith("data: ")).toBe(true);
    expect(frame.endsWith("\n\n")).toBe(true);
    expect(JSON.parse(frame.slice(6))).toEqual({
      error: { message: "Overloaded", type: "overloaded_error", param: null, code: "overloaded" },
    });
    expect(encoder.end()).toBe("data: [DONE]\n\n");
  });

  test("a bare vendor id gets the chatcmpl- prefix; an explicit id option wins", () => {
    const bare = chunksOf(encodeEvents([{ type: "start", id: "945bb10c-9bf3", model: "m" }], { model: "m" }));
    expect((bare[0] as { id: string }).id).toBe("chatcmpl-945bb10c-9bf3");
    const given = chunksOf(encodeEvents(irStream.slice(0, 1), { model: "m", id: "chatcmpl-mine" }));
    expect((given[0] as { id: string }).id).toBe("chatcmpl-mine");
  });

  test("the OpenAI SDK accumulates the encoded stream into the same completion", async () => {
    const sse = encodeEvents(irStream, { model: "gpt-4o", includeUsage: true });
    const client = new OpenAI({
      apiKey: "test",
      baseURL: "http://relay.test/v1",
      fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
    });
    const stream = client.chat.completions.stream({
      model: "gpt-4o",
      messages: [{ role: "user", content: "weather and time in Oslo" }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0].message;
    expect(message.content).toBe("On it.");
    expect(message.tool_calls?.map((c) => (c.type === "function" ? [c.id, c.function.name, c.function.arguments] : []))).toEqual([
      ["toolu_1", "weather", '{"city":"Oslo"}'],
      ["toolu_2", "time", "{}"],
    ]);
    expect(completion.choices[0].finish_reason).toBe("tool_calls");
    expect(completion.usage?.prompt_tokens).toBe(100);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(90);
  });
});
