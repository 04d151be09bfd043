// Ollama has no recordings in the fixture set; these bodies and NDJSON lines
// follow the shapes documented for POST /api/chat.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { NdjsonParser } from "../../src/core/formats/ndjson.ts";
import { ollamaCodec } from "../../src/core/formats/ollama/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";
import type { ChatRequest, ContentBlock, StreamEvent } from "../../src/core/ir.ts";
import { collect, decodeAll } from "./gemini-ollama-stream-helpers.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const encode = (req: ChatRequest) => ollamaCodec.encodeRequest(req, { model: "qwen3:8b" });
const toolIdsErased = (blocks: ContentBlock[]) => blocks.map((b) => (b.type === "tool_use" ? { ...b, id: "*" } : b));

const chatBody = {
  model: "qwen3:8b",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Weather in Toronto? Here is a photo.", images: [PNG] },
    {
      role: "assistant",
      content: "",
      thinking: "Need the weather tool.",
      tool_calls: [
        { function: { name: "get_weather", arguments: { city: "Toronto" } } },
        { function: { name: "get_time", arguments: {} } },
      ],
    },
    { role: "tool", content: "-3C, snow", tool_name: "get_weather" },
    { role: "tool", content: "09:00", tool_name: "get_time" },
    { role: "user", content: "Thanks. Summarise." },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    },
  ],
  format: { type: "object", properties: { summary: { type: "string" } } },
  options: { temperature: 0.2, top_p: 0.8, top_k: 20, num_predict: 128, stop: ["###"], num_ctx: 8192, seed: 1 },
  think: "high",
  keep_alive: "10m",
};

describe("ollama requests", () => {
  const req = ollamaCodec.decodeRequest(chatBody);

  test("stream defaults to TRUE when absent, as Ollama does", () => {
    expect(req.stream).toBe(true);
    expect(ollamaCodec.decodeRequest({ ...chatBody, stream: false }).stream).toBe(false);
    expect(encode({ ...req, stream: false }).body.stream).toBe(false);
  });

  test("system, images, thinking, options, format, think and unknown keys decode to IR", () => {
    expect(req.model).toBe("qwen3:8b");
    expect(req.system).toEqual([{ type: "text", text: "You are terse." }]);
    expect(req.messages[0].content[1]).toEqual({ type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } });
    expect(req.messages[1].content[0]).toEqual({ type: "thinking", text: "Need the weather tool." });
    expect(req).toMatchObject({ temperature: 0.2, topP: 0.8, topK: 20, maxTokens: 128, stop: ["###"] });
    expect(req.responseFormat).toEqual({ type: "json_schema", schema: chatBody.format });
    expect(req.reasoning).toEqual({ effort: "high" });
    expect(req.extra).toEqual({ keep_alive: "10m", options: { num_ctx: 8192, seed: 1 } });
  });

  test("id-less tool calls get call_<n> ids; tool messages pair by tool_name and share one user message", () => {
    const calls = req.messages[1].content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => c.id)).toEqual(["call_0", "call_1"]);
    expect(req.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", toolUseId: "call_0", name: "get_weather", content: [{ type: "text", text: "-3C, snow" }] },
        { type: "tool_result", toolUseId: "call_1", name: "get_time", content: [{ type: "text", text: "09:00" }] },
        { type: "text", text: "Thanks. Summarise." },
      ],
    });
    expect(req.messages).toHaveLength(3);
  });

  test("a tool message without tool_name answers the oldest open call and inherits its name", () => {
    const r = ollamaCodec.decodeRequest({
      model: "m",
      messages: [
        { role: "assistant", content: "", tool_calls: [{ function: { name: "a", arguments: {} } }] },
        { role: "tool", content: "done" },
      ],
    });
    expect(r.messages[1].content[0]).toMatchObject({ type: "tool_result", toolUseId: "call_0", name: "a" });
  });

  test("decode -> encode reproduces the documented body", () => {
    const { body, dropped } = encode(req);
    expect(dropped).toEqual([]);
    expect(body).toEqual({ ...chatBody, stream: true });
  });

  test("image URLs cannot be sent to Ollama: CodecError with the parameter path", () => {
    const bad: ChatRequest = {
      model: "m",
      stream: false,
      messages: [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image", source: { kind: "url", url: "https://x.test/a.png" } }] }],
    };
    try {
      encode(bad);
      throw new Error("expected a CodecError");
    } catch (e) {
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).message).toBe("Ollama accepts only base64 images");
      expect((e as CodecError).parameter).toBe("messages[0].content[1]");
    }
  });

  test("tool results from other formats become role tool messages named after the earlier call", () => {
    const { body, dropped } = encode({
      model: "m",
      stream: true,
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "lookup", input: { q: "x" } }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_9", content: [{ type: "text", text: "found" }] }] },
      ],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
      reasoning: { disabled: true },
    });
    expect(body.messages).toEqual([
      { role: "assistant", content: "", tool_calls: [{ function: { name: "lookup", arguments: { q: "x" } } }] },
      { role: "tool", content: "found", tool_name: "lookup" },
    ]);
    expect(body.think).toBe(false);
    expect(dropped).toEqual(["tool_choice", "parallel_tool_calls"]);
  });

  test("a missing model or unknown role is a CodecError", () => {
    expect(() => ollamaCodec.decodeRequest({ messages: [] })).toThrow(CodecError);
    expect(() => ollamaCodec.decodeRequest({ model: "m", messages: [{ role: "robot", content: "" }] })).toThrow(CodecError);
  });

  test("property: encode -> decode keeps text conversations and options", () => {
    const text = fc.string({ minLength: 1, maxLength: 20 });
    const request = fc.record(
      {
        system: text.map((t) => [{ type: "text" as const, text: t }]),
        messages: fc.array(
          fc.record({
            role: fc.constantFrom("user" as const, "assistant" as const),
            content: text.map((t) => [{ type: "text" as const, text: t }]),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        stream: fc.boolean(),
        maxTokens: fc.integer({ min: 1, max: 4096 }),
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        topK: fc.integer({ min: 1, max: 100 }),
        stop: fc.array(text, { minLength: 1, maxLength: 3 }),
        reasoning: fc.constantFrom({}, { disabled: true }, { effort: "low" as const }, { effort: "high" as const }),
        responseFormat: fc.constantFrom({ type: "json" as const }, { type: "json_schema" as const, schema: { type: "object" } }),
      },
      { requiredKeys: ["messages", "stream"] },
    );
    fc.assert(
      fc.property(request, (r) => {
        const req: ChatRequest = { model: "qwen3:8b", ...r };
        expect(ollamaCodec.decodeRequest(encode(req).body)).toEqual(req);
      }),
    );
  });
});

const line = (o: object) => JSON.stringify(o);
const at = "2025-05-27T22:54:57.641643Z";

describe("ollama responses", () => {
  test("a non-streaming reply with thinking, text and counts", () => {
    const res = ollamaCodec.decodeResponse({
      model: "qwen3:8b",
      created_at: at,
      message: { role: "assistant", content: "Snowing, -3C.", thinking: "User wants weather." },
      done: true,
      done_reason: "stop",
      total_duration: 4883583458,
      prompt_eval_count: 26,
      eval_count: 298,
    });
    expect(res.content).toEqual([
      { type: "thinking", text: "User wants weather." },
      { type: "text", text: "Snowing, -3C." },
    ]);
    expect(res.stopReason).toBe("end_turn");
    expect(res.usage).toEqual({ inputTokens: 26, outputTokens: 298, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(res.created).toBe(Math.floor(Date.parse(at) / 1000));
    const again = ollamaCodec.decodeResponse(ollamaCodec.encodeResponse(res, { model: "qwen3:8b" }));
    expect(again.content).toEqual(res.content);
    expect(again.usage).toEqual(res.usage);
    expect(again.created).toBe(res.created);
  });

  test("tool calls make stop reason tool_use although done_reason is stop; length is max_tokens", () => {
    const res = ollamaCodec.decodeResponse({
      model: "m",
      message: { role: "assistant", content: "", tool_calls: [{ function: { name: "get_weather", arguments: { city: "Toronto" } } }] },
      done: true,
      done_reason: "stop",
    });
    expect(res.stopReason).toBe("tool_use");
    expect(res.content[0]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Toronto" }, id: expect.stringMatching(/^call_/) });
    expect(ollamaCodec.decodeResponse({ model: "m", message: { content: "cut" }, done: true, done_reason: "length" }).stopReason).toBe("max_tokens");
    const encoded = ollamaCodec.encodeResponse({ ...res, stopReason: "max_tokens" }, { model: "m" });
    expect(encoded).toMatchObject({ done: true, done_reason: "length", message: { tool_calls: [{ function: { name: "get_weather", arguments: { city: "Toronto" } } }] } });
  });
});

describe("ollama streams", () => {
  const streamLines = [
    line({ model: "qwen3", created_at: at, message: { role: "assistant", content: "", thinking: "Let me " }, done: false }),
    line({ model: "qwen3", created_at: at, message: { role: "assistant", content: "", thinking: "check." }, done: false }),
    line({ model: "qwen3", created_at: at, message: { role: "assistant", content: "Checking" }, done: false }),
    line({ model: "qwen3", created_at: at, message: { role: "assistant", content: " now." }, done: false }),
    line({
      model: "qwen3",
      created_at: at,
      message: {
        role: "assistant",
        content: "",
        tool_calls: [
          { function: { name: "get_weather", arguments: { city: "Toronto" } } },
          { function: { name: "get_weather", arguments: { city: "Paris" } } },
        ],
      },
      done: false,
    }),
    line({ model: "qwen3", created_at: at, message: { role: "assistant", content: "" }, done: true, done_reason: "stop", prompt_eval_count: 217, eval_count: 71, total_duration: 2e9 }),
  ];

  test("thinking, text and parallel tool calls become separate blocks; the done line gives usage", () => {
    const events = decodeAll(ollamaCodec.streamDecoder(), streamLines);
    expect(events[0]).toMatchObject({ type: "start", model: "qwen3" });
    const out = collect(events);
    expect(toolIdsErased(out.content)).toEqual([
      { type: "thinking", text: "Let me check." },
      { type: "text", text: "Checking now." },
      { type: "tool_use", id: "*", name: "get_weather", input: { city: "Toronto" } },
      { type: "tool_use", id: "*", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(out.stopReason).toBe("tool_use");
    expect(out.usage).toEqual({ inputTokens: 217, outputTokens: 71, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("an error line mid-stream ends it with an error event", () => {
    const events = decodeAll(ollamaCodec.streamDecoder(), [streamLines[2], line({ error: "model runner has unexpectedly stopped" })]);
    expect(events.at(-1)).toEqual({
      type: "error",
      error: { kind: "api_error", status: 500, message: "model runner has unexpectedly stopped" },
    });
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  test("a stream cut before done closes its blocks but ends with an error, not a finish", () => {
    const events = decodeAll(ollamaCodec.streamDecoder(), streamLines.slice(2, 4));
    const out = collect(events);
    expect(out.content).toEqual([{ type: "text", text: "Checking now." }]);
    expect(events.some((e) => e.type === "finish")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { status: 502 } });
  });

  test("streamEncoder -> NDJSON -> streamDecoder keeps content, usage and stop reason", () => {
    const events = decodeAll(ollamaCodec.streamDecoder(), streamLines);
    const encoder = ollamaCodec.streamEncoder({ model: "qwen3" });
    const ndjson = events.map((e) => encoder.encode(e)).join("") + encoder.end();
    for (const l of ndjson.trim().split("\n")) expect(JSON.parse(l)).toMatchObject({ model: "qwen3" });
    const parser = new NdjsonParser();
    const raws = [...parser.push(ndjson), ...parser.end()];
    const again = collect(decodeAll(ollamaCodec.streamDecoder(), raws.map((r) => r.data)));
    const first = collect(events);
    expect(toolIdsErased(again.content)).toEqual(toolIdsErased(first.content));
    expect(again.usage).toEqual(first.usage);
    expect(again.stopReason).toBe("tool_use");
    const last = JSON.parse(ndjson.trim().split("\n").at(-1) ?? "{}");
    expect(last).toMatchObject({ done: true, done_reason: "stop", prompt_eval_count: 217, eval_count: 71 });
  });

  test("streamEncoder writes errors as an {error} line", () => {
    const encoder = ollamaCodec.streamEncoder({ model: "m" });
    const ev: StreamEvent = { type: "error", error: { kind: "overloaded", status: 503, message: "busy" } };
    expect(encoder.encode(ev)).toBe('{"error":"busy"}\n');
  });
});

describe("ollama errors", () => {
  test("status decides the kind; the body's error string is the message", () => {
    expect(ollamaCodec.decodeError(404, { error: "model 'llama9' not found" })).toEqual({
      kind: "not_found",
      status: 404,
      message: "model 'llama9' not found",
    });
    expect(ollamaCodec.decodeError(400, { error: "invalid format" }).kind).toBe("invalid_request");
    expect(ollamaCodec.decodeError(429, { error: "slow down" }, new Headers({ "retry-after": "12" }))).toMatchObject({ kind: "rate_limit", retryAfter: 12 });
    expect(ollamaCodec.decodeError(500, null).message).toBe("Ollama returned HTTP 500");
    expect(ollamaCodec.encodeError({ kind: "timeout", status: 504, message: "took too long" })).toEqual({ error: "took too long" });
  });
});
