// Golden fixtures: every recorded Responses API answer (`openai/responses__*`), whole and
// streamed, replayed through the Responses codec, re-encoded and decoded again. Expectations are
// read from the recordings themselves, independently of the codec: the text of the message
// items, the function calls, the reasoning summaries and encrypted content, and the usage with
// its cached and reasoning tokens.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import path from "node:path";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { responseId, responsesCodec } from "../../src/core/formats/responses/index.ts";
import type { ContentBlock, StreamEvent, Usage } from "../../src/core/ir.ts";
import { recordingsDir } from "../fakes/fixtures.ts";
import { assemble, decodeRaw, decodeSse, encodeEvents, readRecording, recordedStreams, sseEvents } from "./responses.helpers.ts";

type Json = Record<string, any>;

const FILES = readdirSync(path.join(recordingsDir(), "openai")).filter((f) => f.startsWith("responses__")).map((f) => `openai/${f}`);
/** Error bodies, checked as errors. */
const ERRORS: Record<string, { status: number; kind: string; vendorType: string }> = {
  "openai/responses__openai-error.1.json": { status: 429, kind: "rate_limit", vendorType: "insufficient_quota" },
  "openai/responses__reasoning-model-temperature-error.json": { status: 400, kind: "invalid_request", vendorType: "invalid_request_error" },
};
/** Hand-made recordings whose text deltas are not the beginning of the text their done events give: the deltas stand. */
const DELTAS_STAND: Record<string, string> = { "openai/responses__openai-shell-container.1.chunks.txt": "The command ran successfully." };
/** A hand-made recording whose lifecycle events are not valid JSON (a brace short). */
const MALFORMED = "openai/responses__parallel-tool-call-wrapper.1.chunks.txt";

/** Usage as the recording states it: input_tokens include cached ones. */
function expectedUsage(u: Json): Usage {
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  return { inputTokens: u.input_tokens - cached, outputTokens: u.output_tokens, cacheReadTokens: cached, cacheWriteTokens: 0, reasoningTokens: u.output_tokens_details.reasoning_tokens };
}

/** What the IR must hold of a response's output items, opaque items aside. */
function expectedContent(output: Json[]): ContentBlock[] {
  return output.flatMap((item): ContentBlock[] => {
    if (item.type === "message") return item.content.map((p: Json) => ({ type: "text", text: p.text ?? p.refusal }));
    if (item.type === "function_call") return [{ type: "tool_use", id: item.call_id, name: item.name, input: JSON.parse(item.arguments || "{}") }];
    // A custom tool's text is the IR call's `input` (responses/custom-tools.ts).
    if (item.type === "custom_tool_call") return [{ type: "tool_use", id: item.call_id, name: item.name, input: { input: item.input } }];
    if (item.type !== "reasoning") return [];
    const text = (item.summary ?? []).map((s: Json) => s.text).join("\n\n");
    if (text === "" && !item.encrypted_content) return [];
    return [item.encrypted_content ? { type: "thinking", text, signature: item.encrypted_content } : { type: "thinking", text }];
  });
}

const isToolCall = (i: Json): boolean => i.type === "function_call" || i.type === "custom_tool_call";
const notOpaque = (c: ContentBlock[]): ContentBlock[] => c.filter((b) => b.type !== "opaque");
const outcomeOf = (evs: StreamEvent[]) => evs.filter((e) => e.type === "finish" || e.type === "error").map((e) => (e.type === "finish" ? { stopReason: e.stopReason, usage: e.usage } : { error: e.error.status }));

describe("recorded Responses answers", () => {
  for (const file of FILES.filter((f) => f.endsWith(".json"))) {
    const body = JSON.parse(readRecording(file)) as Json;
    if (ERRORS[file]) {
      test(`error body decodes to its kind and status (${file})`, () => {
        const status = ERRORS[file]!.status;
        expect(responsesCodec.decodeError(status, body)).toMatchObject({ ...ERRORS[file], message: body.error.message });
      });
      continue;
    }
    test(`decoded, re-encoded and decoded again unchanged (${file})`, () => {
      const res = responsesCodec.decodeResponse(body);
      expect(notOpaque(res.content)).toEqual(expectedContent(body.output));
      const opaque = res.content.filter((b) => b.type === "opaque").map((b) => (b as { value: unknown }).value);
      expect(opaque).toEqual(body.output.filter((i: Json) => !["message", "function_call", "custom_tool_call", "reasoning"].includes(i.type)));
      expect(res.usage).toEqual(expectedUsage(body.usage));
      expect(res.stopReason).toBe(body.output.some(isToolCall) ? "tool_use" : "end_turn");
      expect(res.id).toBe(body.id);
      expect(res.created).toBe(body.created_at);

      const encoded = responsesCodec.encodeResponse(res, { model: res.model });
      expect(encoded).toMatchObject({ id: body.id, object: "response", status: "completed", model: body.model, created_at: body.created_at });
      const again = responsesCodec.decodeResponse(JSON.parse(JSON.stringify(encoded)));
      expect(again.content).toEqual(res.content);
      expect(again.usage).toEqual(res.usage);
      expect(again.stopReason).toBe(res.stopReason);
    });
  }
});

describe("recorded Responses streams", () => {
  test("the malformed hand-made recording ends in a 502, not a crash", () => {
    const evs = decodeRaw(recordedStreams(MALFORMED)[0]!);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ type: "error", error: { status: 502, kind: "api_error" } });
  });

  test("an in-band error (error event, then response.failed) decodes to the vendor's failure", () => {
    const evs = decodeRaw(recordedStreams("openai/responses__openai-error.1.chunks.txt")[0]!);
    expect(evs.map((e) => e.type)).toEqual(["start", "error"]);
    expect(evs[1]).toMatchObject({ error: { status: 429, kind: "rate_limit", vendorType: "insufficient_quota" } });
  });

  const replayable = FILES.filter((f) => f.endsWith(".chunks.txt") && f !== MALFORMED && !f.includes("openai-error"));
  for (const file of replayable) {
    recordedStreams(file).forEach((raws, turn) => {
      const completed = JSON.parse(raws[raws.length - 1]!.data) as Json;
      // The items as each output_item.done gave them (OpenAI re-encrypts reasoning for response.completed).
      const done = raws.map((r) => JSON.parse(r.data) as Json).filter((e) => e.type === "response.output_item.done").map((e) => e.item as Json);
      test(`turn ${turn}: decoded, re-encoded as Responses SSE and decoded again unchanged (${file})`, () => {
        expect(completed.type).toBe("response.completed");
        const decoded = assemble(decodeRaw(raws));
        const expected = expectedContent(done);
        if (DELTAS_STAND[file]) expected[0] = { type: "text", text: DELTAS_STAND[file]! };
        expect(decoded.content).toEqual(expected);
        expect(decoded.usage).toEqual(expectedUsage(completed.response.usage));
        expect(decoded.stopReason).toBe(done.some(isToolCall) ? "tool_use" : "end_turn");
        expect(decoded.id).toBe(JSON.parse(raws[0]!.data).response.id);

        const sse = encodeEvents(decodeRaw(raws), decoded.model);
        const again = assemble(decodeSse(sse));
        expect(again).toEqual({ ...decoded, id: responseId(decoded.id) });
        // The official SDK's accumulator rebuilds the same output from the re-encoded events.
        const events = sseEvents(sse);
        let snapshot: Json | undefined;
        events.forEach(({ data }, i) => {
          expect(data.sequence_number).toBe(i);
          snapshot = accumulateResponse(data as unknown as ResponseStreamEvent, snapshot as never) as Json;
        });
        const final = events[events.length - 1]!.data.response as Json;
        expect(final.output).toEqual(snapshot!.output);
        expect(notOpaque(responsesCodec.decodeResponse(final).content)).toEqual(decoded.content);
      });

      test(`turn ${turn}: every event that carries the outcome is recognised (${file})`, () => {
        const full = responsesCodec.streamDecoder();
        const tapped = responsesCodec.streamDecoder();
        const fullEvents: StreamEvent[] = [];
        const tapEvents: StreamEvent[] = [];
        raws.forEach((raw, i) => {
          fullEvents.push(...full.push(raw));
          if (i === 0 || responsesCodec.carriesOutcome(raw)) tapEvents.push(...tapped.push(raw));
        });
        expect(outcomeOf([...tapEvents, ...tapped.end()])).toEqual(outcomeOf([...fullEvents, ...full.end()]));
        // Deltas are the bulk of a stream, and the only events skipped.
        const skipped = raws.filter((r) => !responsesCodec.carriesOutcome(r)).map((r) => JSON.parse(r.data).type as string);
        for (const type of skipped) expect(type.endsWith(".delta")).toBe(true);
      });
    });
  }
});
