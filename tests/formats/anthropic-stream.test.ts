// Stream encoder frame shapes and decoder edge cases the recordings do not cover.
import { describe, expect, test } from "bun:test";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import type { StreamEvent } from "../../src/core/ir.ts";

const usage = { inputTokens: 10, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 1 };

function frames(text: string): Array<{ event: string; data: any }> {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((f) => {
      const [eventLine, dataLine, ...rest] = f.split("\n");
      expect(rest).toEqual([]);
      expect(eventLine).toStartWith("event: ");
      expect(dataLine).toStartWith("data: ");
      return { event: eventLine.slice(7), data: JSON.parse(dataLine.slice(6)) };
    });
}

const decode = (events: object[]) => {
  const dec = anthropicCodec.streamDecoder();
  return [...events.flatMap((e) => dec.push({ data: JSON.stringify(e) })), ...dec.end()];
};

describe("anthropic stream encoder", () => {
  test("frames carry the event name Anthropic uses and the full message_start shape", () => {
    const enc = anthropicCodec.streamEncoder({ model: "client-model" });
    const out = frames(
      [
        enc.encode({ type: "start", id: "msg_1", model: "vendor-model", usage: { inputTokens: 10, cacheReadTokens: 2, cacheWriteTokens: 1 } }),
        enc.encode({ type: "block_start", index: 0, block: { type: "text" } }),
        enc.encode({ type: "text_delta", index: 0, text: "hi" }),
        enc.encode({ type: "block_stop", index: 0 }),
        enc.encode({ type: "ping" }),
        enc.encode({ type: "finish", stopReason: "stop_sequence", stopSequence: "END", usage }),
      ].join("") + enc.end(),
    );
    for (const f of out) expect(f.data.type).toBe(f.event);
    expect(out.map((f) => f.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "ping",
      "message_delta",
      "message_stop",
    ]);
    expect(out[0].data.message).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "client-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 0 },
    });
    expect(out[1].data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(out[5].data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "stop_sequence", stop_sequence: "END" },
      usage: { input_tokens: 10, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 4 },
    });
  });

  test("message_start is synthesized before the first block when the IR stream has none", () => {
    const enc = anthropicCodec.streamEncoder({ model: "m", id: "msg_fixed" });
    const out = frames(enc.encode({ type: "block_start", index: 0, block: { type: "tool_use", id: "t", name: "f" } }));
    expect(out.map((f) => f.event)).toEqual(["message_start", "content_block_start"]);
    expect(out[0].data.message.id).toBe("msg_fixed");
    expect(out[1].data.content_block).toEqual({ type: "tool_use", id: "t", name: "f", input: {} });
  });

  test("blocks left open are closed before message_delta", () => {
    const enc = anthropicCodec.streamEncoder({ model: "m" });
    const text = [
      enc.encode({ type: "block_start", index: 0, block: { type: "text" } }),
      enc.encode({ type: "finish", stopReason: "max_tokens", usage }),
    ].join("");
    expect(frames(text).map((f) => f.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  test("errors are framed as Anthropic error events", () => {
    const enc = anthropicCodec.streamEncoder({ model: "m" });
    const ev: StreamEvent = { type: "error", error: { kind: "overloaded", status: 529, message: "Overloaded" } };
    expect(enc.encode(ev)).toBe('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
  });
});

describe("anthropic stream decoder", () => {
  const start = { type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 3, output_tokens: 1 } } };

  test("an error event becomes an IR error with Anthropic's status for its type, and ends the stream", () => {
    const events = decode([start, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, { type: "ping" }]);
    expect(events.slice(1)).toEqual([
      { type: "error", error: { kind: "overloaded", status: 529, message: "Overloaded", vendorType: "overloaded_error" } },
    ]);
  });

  test("a stream cut after message_delta still finishes; one cut earlier reports an error", () => {
    const delta = { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } };
    const finished = decode([start, delta]);
    expect(finished.at(-1)).toEqual({
      type: "finish",
      stopReason: "max_tokens",
      usage: { inputTokens: 3, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    const cut = decode([start, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }]);
    expect(cut.slice(-2)).toEqual([
      { type: "block_stop", index: 0 },
      { type: "error", error: { kind: "api_error", status: 502, message: "Anthropic stream ended before message_stop" } },
    ]);
  });

  test("unreadable event data is reported, not thrown", () => {
    const dec = anthropicCodec.streamDecoder();
    const [ev] = dec.push({ event: "message_start", data: "{not json" });
    expect(ev).toMatchObject({ type: "error", error: { kind: "api_error" } });
  });

  test("redacted thinking and citations deltas", () => {
    const events = decode([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "enc" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: { cited_text: "x" } } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "cited" } },
      { type: "content_block_stop", index: 1 },
      { type: "message_stop" },
    ]);
    expect(events.slice(1, -1)).toEqual([
      { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "enc" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "cited" },
      { type: "block_stop", index: 1 },
    ]);
  });
});
