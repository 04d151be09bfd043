// The Responses stream codec: the event sequence the encoder writes (names, sequence numbers,
// indices, the completed response with its usage details), errors as `error` + `response.failed`,
// and the decoder on streams unlike OpenAI's usual ones (items sent whole, refusals, incomplete).
import { describe, expect, test } from "bun:test";
import type { StreamEvent, Usage } from "../../src/core/ir.ts";
import { responsesCodec } from "../../src/core/formats/responses/index.ts";
import { assemble, decodeRaw, decodeSse, encodeEvents, sseEvents } from "./responses.helpers.ts";

const usage: Usage = { inputTokens: 10, outputTokens: 30, cacheReadTokens: 90, cacheWriteTokens: 0, reasoningTokens: 12 };

const toolTurn: StreamEvent[] = [
  { type: "start", id: "msg_01", model: "claude-x" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Need " },
  { type: "thinking_delta", index: 0, text: "weather." },
  { type: "signature_delta", index: 0, signature: "sig==" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Let me " },
  { type: "text_delta", index: 1, text: "check." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_use", id: "toolu_1", name: "weather" } },
  { type: "tool_args_delta", index: 2, json: '{"city":' },
  { type: "tool_args_delta", index: 2, json: '"Paris"}' },
  { type: "block_stop", index: 2 },
  { type: "block_start", index: 3, block: { type: "tool_use", id: "toolu_2", name: "now" } },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: "tool_use", usage },
];

describe("responses stream encoder", () => {
  test("writes the Responses event sequence, numbered from 0, named in event: lines", () => {
    const events = sseEvents(encodeEvents(toolTurn, "claude-x"));
    expect(events.map((e) => e.data.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    events.forEach((e, i) => {
      expect(e.event).toBe(e.data.type as string);
      expect(e.data.sequence_number).toBe(i);
    });
    const created = events[0]!.data.response as Record<string, unknown>;
    expect(created).toMatchObject({ id: "resp_msg_01", object: "response", status: "in_progress", model: "claude-x", output: [], usage: null });
    expect(events[11]!.data).toMatchObject({ output_index: 1, content_index: 0, delta: "Let me " });
    expect(events[13]!.data).toMatchObject({ output_index: 1, content_index: 0, text: "Let me check." });
    expect(events[19]!.data).toMatchObject({ output_index: 2, arguments: '{"city":"Paris"}' });
    // A call that streamed no arguments ends with "{}", which clients can parse.
    expect(events[22]!.data).toMatchObject({ output_index: 3, arguments: "{}" });

    const completed = events[events.length - 1]!.data.response as Record<string, any>;
    expect(completed.status).toBe("completed");
    expect(completed.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 90 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 130,
    });
    expect(completed.output.map((o: any) => o.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    expect(completed.output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Need weather." }], encrypted_content: "sig==" });
    expect(completed.output[2]).toMatchObject({ type: "function_call", call_id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}', status: "completed" });
    // Item ids are the same in the events and the completed response.
    expect(completed.output[1].id).toBe((events[9]!.data.item as any).id);
  });

  test("decoding the encoded stream gives the same turn back", () => {
    const again = assemble(decodeSse(encodeEvents(toolTurn, "claude-x")));
    expect(again).toEqual({
      id: "resp_msg_01",
      model: "claude-x",
      content: [
        { type: "thinking", text: "Need weather.", signature: "sig==" },
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_2", name: "now", input: {} },
      ],
      stopReason: "tool_use",
      usage,
    });
  });

  test("a token limit ends with response.incomplete and its reason", () => {
    const events = sseEvents(encodeEvents([{ type: "start", id: "x", model: "m" }, { type: "finish", stopReason: "max_tokens", usage }]));
    const last = events[events.length - 1]!.data;
    expect(last.type).toBe("response.incomplete");
    expect(last.response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(assemble(decodeSse(encodeEvents([{ type: "start", id: "x", model: "m" }, { type: "finish", stopReason: "max_tokens", usage }]))).stopReason).toBe("max_tokens");
  });

  test("an error mid-stream is an error event, then response.failed with the items done so far", () => {
    const sse = encodeEvents([
      { type: "start", id: "resp_1", model: "m" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "partial" },
      { type: "block_stop", index: 0 },
      { type: "error", error: { kind: "overloaded", status: 529, message: "Overloaded", vendorType: "overloaded_error" } },
    ]);
    const events = sseEvents(sse);
    const [error, failed] = events.slice(-2).map((e) => e.data);
    expect(error).toEqual({ type: "error", sequence_number: events.length - 2, code: "overloaded_error", message: "Overloaded", param: null });
    expect(failed).toMatchObject({ type: "response.failed", response: { id: "resp_1", status: "failed", error: { code: "overloaded_error", message: "Overloaded" } } });
    expect((failed!.response as any).output[0].content[0].text).toBe("partial");
    const decoded = decodeSse(sse);
    expect(decoded[decoded.length - 1]).toMatchObject({ type: "error", error: { message: "Overloaded" } });
  });
});

describe("responses stream decoder", () => {
  const raw = (events: Array<Record<string, unknown>>) => events.map((e) => ({ event: e.type as string, data: JSON.stringify(e) }));
  const created = { type: "response.created", response: { id: "resp_9", model: "gpt-5" } };
  const done = (extra: Record<string, unknown> = {}) => ({ type: "response.completed", response: { id: "resp_9", status: "completed", usage: { input_tokens: 5, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 } }, ...extra } });

  test("items sent whole (no deltas) still give their content", () => {
    const got = assemble(
      decodeRaw(
        raw([
          created,
          { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
          { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "A" }, { type: "summary_text", text: "B" }], encrypted_content: "e" } },
          { type: "response.output_item.added", output_index: 1, item: { type: "message", id: "m", role: "assistant", content: [] } },
          { type: "response.output_item.done", output_index: 1, item: { type: "message", id: "m", role: "assistant", content: [{ type: "output_text", text: "Hi" }] } },
          { type: "response.output_item.added", output_index: 2, item: { type: "function_call", id: "fc", call_id: "c1", name: "f", arguments: "" } },
          { type: "response.output_item.done", output_index: 2, item: { type: "function_call", id: "fc", call_id: "c1", name: "f", arguments: '{"x":1}' } },
          done(),
        ]),
      ),
    );
    expect(got.content).toEqual([
      { type: "thinking", text: "A\n\nB", signature: "e" },
      { type: "text", text: "Hi" },
      { type: "tool_use", id: "c1", name: "f", input: { x: 1 } },
    ]);
    expect(got.stopReason).toBe("tool_use");
    expect(got.usage).toEqual({ inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 3 });
  });

  test("summary parts streamed one after another join as the whole response's do", () => {
    const at = { item_id: "rs_1", output_index: 0 };
    const got = assemble(
      decodeRaw(
        raw([
          created,
          { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
          { type: "response.reasoning_summary_part.added", ...at, summary_index: 0 },
          { type: "response.reasoning_summary_text.delta", ...at, summary_index: 0, delta: "A" },
          { type: "response.reasoning_summary_part.added", ...at, summary_index: 1 },
          { type: "response.reasoning_summary_text.delta", ...at, summary_index: 1, delta: "B" },
          { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "A" }, { type: "summary_text", text: "B" }] } },
          done(),
        ]),
      ),
    );
    expect(got.content).toEqual([{ type: "thinking", text: "A\n\nB" }]);
  });

  test("a refusal and an incomplete answer", () => {
    const refusal = assemble(
      decodeRaw(
        raw([
          created,
          { type: "response.output_item.added", output_index: 0, item: { type: "message", id: "m", role: "assistant", content: [] } },
          { type: "response.refusal.delta", item_id: "m", output_index: 0, content_index: 0, delta: "I can't." },
          { type: "response.output_item.done", output_index: 0, item: { type: "message", id: "m", content: [{ type: "refusal", refusal: "I can't." }] } },
          done(),
        ]),
      ),
    );
    expect(refusal).toMatchObject({ content: [{ type: "text", text: "I can't." }], stopReason: "refusal" });
    const cut = assemble(decodeRaw(raw([created, { type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "content_filter" }, usage: {} } }])));
    expect(cut.stopReason).toBe("content_filter");
  });

  test("a stream that stops before response.completed is a 502", () => {
    const evs = decodeRaw(raw([created, { type: "response.output_item.added", output_index: 0, item: { type: "function_call", call_id: "c", name: "f" } }]));
    expect(evs.map((e) => e.type)).toEqual(["start", "block_start", "block_stop", "error"]);
    expect(evs[3]).toMatchObject({ error: { status: 502, message: "vendor stream ended before response.completed" } });
  });

  test("carriesOutcome: only deltas are skipped, by event name or by the payload's leading type", () => {
    const carries = (event: string | undefined, data: string) => responsesCodec.carriesOutcome({ event, data });
    expect(carries("response.output_text.delta", "{}")).toBe(false);
    expect(carries("response.function_call_arguments.delta", "{}")).toBe(false);
    expect(carries("response.completed", "{}")).toBe(true);
    expect(carries("response.output_item.added", "{}")).toBe(true);
    expect(carries(undefined, '{"type":"response.output_text.delta","delta":"x"}')).toBe(false);
    expect(carries(undefined, '{"type":"response.completed","response":{"output":[{"text":".delta\\""}]}}')).toBe(true);
    expect(carries(undefined, '{"sequence_number":3,"type":"response.output_text.delta"}')).toBe(true);
  });
});
