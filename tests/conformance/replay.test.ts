/**
 * Golden-fixture replay: real vendor recordings are replayed by the fake
 * vendors and read back through the official SDKs, in both directions of
 * translation. Each describe names the path it proves:
 *  - Anthropic and Gemini recordings → Relay → OpenAI SDK (cross-format, through the gateway);
 *  - OpenAI-family recordings → Relay → OpenAI SDK (same format: passthrough, and the
 *    re-encoded stream path Relay takes when it must inject include_usage);
 *  - OpenAI-family recordings → codecs → Anthropic SDK (no gateway: /v1/messages serves
 *    Anthropic models only, so this direction is proven on the codecs Relay uses).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import { recordingReply } from "../fakes/fixtures.ts";
import { parseSse } from "../fakes/wire.ts";
import type { VendorKind } from "../fakes/types.ts";
import { MODELS, resetFakes, startWorld, type World } from "./harness.ts";
import { ANTHROPIC_RECORDINGS, GEMINI_RECORDINGS, OPENAI_FAMILY_RECORDINGS, type Expected, type TextExpectation } from "./recordings.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.stop());
beforeEach(() => resetFakes(world));

const isStream = (file: string) => file.endsWith(".chunks.txt");

function expectText(actual: string, expected: TextExpectation | undefined): void {
  if (expected === undefined) expect(actual).toBe("");
  else if (typeof expected === "string") expect(actual).toBe(expected);
  else {
    expect(actual.startsWith(expected.start)).toBe(true);
    expect(actual.endsWith(expected.end)).toBe(true);
  }
}

function expectTools(actual: Array<{ id: string; name: string; args: unknown }>, expected: Expected["tools"]): void {
  expect(actual.map(({ name, args }) => ({ name, args }))).toEqual((expected ?? []).map(({ name, args }) => ({ name, args })));
  (expected ?? []).forEach((e, i) => {
    // Vendors without call ids (Gemini) get ones invented by Relay.
    if (e.id) expect(actual[i]!.id).toBe(e.id);
    else expect(actual[i]!.id).toBeTruthy();
  });
}

// ---- reading an answer through the OpenAI SDK ----------------------------------

interface OpenAIAnswer {
  text: string;
  reasoning: string;
  tools: Array<{ id: string; name: string; args: unknown }>;
  finish: string | null;
  usage?: OpenAI.Completions.CompletionUsage | null;
  /** Streamed tool-call fragments that lacked the `index` OpenAI's format requires. */
  unindexedToolDeltas: number;
}

/** `reasoning_content` is a vendor extension the SDK's types do not know. */
type WithReasoning = { reasoning_content?: string | null };

async function askOpenAI(model: string, stream: boolean, includeUsage = true): Promise<OpenAIAnswer> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "replay" }];
  if (!stream) {
    const r = await world.openai.chat.completions.create({ model, messages });
    const m = r.choices[0]!.message;
    return {
      text: m.content ?? "",
      reasoning: (m as WithReasoning).reasoning_content ?? "",
      // Mistral omits `type` on its (passed-through) tool calls, so read the function member itself.
      tools: (m.tool_calls ?? []).map((c) => ("function" in c ? { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) } : { id: c.id, name: "", args: null })),
      finish: r.choices[0]!.finish_reason,
      usage: r.usage,
      unindexedToolDeltas: 0,
    };
  }
  const s = await world.openai.chat.completions.create({ model, messages, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) });
  const answer: OpenAIAnswer = { text: "", reasoning: "", tools: [], finish: null, unindexedToolDeltas: 0 };
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for await (const chunk of s) {
    if (chunk.usage) answer.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    answer.text += choice.delta.content ?? "";
    answer.reasoning += (choice.delta as WithReasoning).reasoning_content ?? "";
    for (const t of choice.delta.tool_calls ?? []) {
      if (typeof t.index !== "number") answer.unindexedToolDeltas++;
      const call = (calls[t.index ?? 0] ??= { id: "", name: "", args: "" });
      call.id ||= t.id ?? "";
      call.name += t.function?.name ?? "";
      call.args += t.function?.arguments ?? "";
    }
    answer.finish = choice.finish_reason ?? answer.finish;
  }
  answer.tools = calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) }));
  return answer;
}

function expectOpenAIAnswer(a: OpenAIAnswer, e: Expected, withUsage = true): void {
  expectText(a.text, e.text);
  expectText(a.reasoning, e.reasoning);
  expectTools(a.tools, e.tools);
  expect(a.finish).toBe(e.finish);
  if (!withUsage) return;
  expect(a.usage?.prompt_tokens).toBe(e.usage.prompt);
  expect(a.usage?.completion_tokens).toBe(e.usage.completion);
  expect(a.usage?.prompt_tokens_details?.cached_tokens ?? 0).toBe(e.usage.cached);
  if (e.usage.reasoning !== undefined) expect(a.usage?.completion_tokens_details?.reasoning_tokens).toBe(e.usage.reasoning);
}

function replayCase(kind: VendorKind, model: string) {
  return async (file: string, expected: Expected) => {
    world.fakes[kind].enqueue(world.fakes[kind].replayFixture(file));
    expectOpenAIAnswer(await askOpenAI(model, isStream(file)), expected);
  };
}

describe("Anthropic recordings → Relay → OpenAI SDK (anthropic → openai translation)", () => {
  test.each(ANTHROPIC_RECORDINGS.map((r) => [r.file, r.expect] as const))("%s", replayCase("anthropic", MODELS.anthropic));
});

describe("Gemini recordings → Relay → OpenAI SDK (gemini → openai translation)", () => {
  test.each(GEMINI_RECORDINGS.map((r) => [r.file, r.expect] as const))("%s", replayCase("gemini", MODELS.gemini));
});

describe("OpenAI-family recordings → Relay → OpenAI SDK (same format)", () => {
  const rows = OPENAI_FAMILY_RECORDINGS.map((r) => [r.file, r.model, r.expect] as const);

  test.each(rows)("%s via %s: passthrough (stream: include_usage)", async (file, model, expected) => {
    world.fakes.openai.enqueue(world.fakes.openai.replayFixture(file));
    expectOpenAIAnswer(await askOpenAI(model, isStream(file)), expected);
    // The compat vendors are reached at <BASE_URL>/chat/completions with their own key.
    expect(world.fakes.openai.requests[0]!.path).toBe("/v1/chat/completions");
  });

  test.each(rows.filter(([file]) => isStream(file)))("%s via %s: re-encoded stream (Relay injects include_usage)", async (file, model, expected) => {
    world.fakes.openai.enqueue(world.fakes.openai.replayFixture(file));
    const answer = await askOpenAI(model, true, false);
    expectOpenAIAnswer(answer, expected, false);
    // Relay asked the vendor for usage (to cost the run) but does not push it on a client that did not ask.
    expect(world.fakes.openai.requests[0]!.json.stream_options).toEqual({ include_usage: true });
    expect(answer.usage).toBeUndefined();
    // Re-encoding normalises vendor quirks such as Mistral's index-less tool_call deltas.
    expect(answer.unindexedToolDeltas).toBe(0);
  });

  test("passthrough keeps Mistral's index-less tool_call deltas byte for byte (a vendor quirk Relay does not rewrite)", async () => {
    world.fakes.openai.enqueue(world.fakes.openai.replayFixture("mistral/mistral-tool-call.chunks.txt"));
    const answer = await askOpenAI("mistral:mistral-small-latest", true, true);
    expect(answer.unindexedToolDeltas).toBe(1);
  });
});

// ---- OpenAI-family → Anthropic shape, on the codecs ----------------------------

/** Serves whatever the current test translated, so the Anthropic SDK can read it. */
let served: { body: string; type: string } = { body: "", type: "application/json" };
let codecServer: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  codecServer = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(served.body, { headers: { "content-type": served.type } }) });
});
afterAll(() => codecServer.stop(true));

/** What Relay's stream path does when an Anthropic client reads an OpenAI-format vendor: parse, decode, re-encode. */
function translateStream(chunks: string[]): string {
  const sse = chunks.map((c) => `data: ${c}\n\n`).join("") + "data: [DONE]\n\n";
  const parser = new SseParser();
  const decoder = openaiCodec.streamDecoder();
  const encoder = anthropicCodec.streamEncoder({ model: "replayed-model" });
  let out = "";
  for (const raw of [...parser.push(sse), ...parser.end()]) for (const ev of decoder.push(raw)) out += encoder.encode(ev);
  for (const ev of decoder.end()) out += encoder.encode(ev);
  return out + encoder.end();
}

function translateBody(body: string): string {
  return JSON.stringify(anthropicCodec.encodeResponse(openaiCodec.decodeResponse(JSON.parse(body)), { model: "replayed-model" }));
}

describe("OpenAI-family recordings → codecs → Anthropic SDK (openai → anthropic translation, no gateway)", () => {
  const client = () => new Anthropic({ baseURL: codecServer.url.origin, apiKey: "unused", maxRetries: 0 });

  test.each(OPENAI_FAMILY_RECORDINGS.map((r) => [r.file, r.expect] as const))("%s", async (file, e) => {
    const reply = recordingReply(file);
    const params = { model: "replayed-model", max_tokens: 1024, messages: [{ role: "user" as const, content: "replay" }] };
    let message: Anthropic.Message;
    if (isStream(file)) {
      served = { body: translateStream(reply.raw!.chunks!), type: "text/event-stream" };
      // The translated stream must be a well-formed Anthropic event sequence.
      const events = parseSse(served.body).map((x) => x.event);
      expect(events[0]).toBe("message_start");
      expect(events.at(-1)).toBe("message_stop");
      message = await client().messages.stream(params).finalMessage();
    } else {
      served = { body: translateBody(reply.raw!.body!), type: "application/json" };
      message = await client().messages.create(params);
    }

    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    const thinking = message.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("");
    const tools = message.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, args: b.input }] : []));
    expectText(text, e.text);
    expectText(thinking, e.reasoning);
    expectTools(tools, e.tools);
    expect(message.stop_reason).toBe(e.finish === "tool_calls" ? "tool_use" : "end_turn");
    // Anthropic accounting: input excludes cache reads; output includes reasoning.
    expect(message.usage.input_tokens).toBe(e.usage.prompt - e.usage.cached);
    expect(message.usage.cache_read_input_tokens ?? 0).toBe(e.usage.cached);
    expect(message.usage.output_tokens).toBe(e.irOutput ?? e.usage.completion);
  });
});
