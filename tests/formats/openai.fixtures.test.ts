// Golden fixtures: real chat-completions recordings from OpenAI, Azure, DeepSeek,
// Groq, Mistral and xAI, decoded and re-encoded. Responses API (`responses__*`)
// and legacy completions (`completion__*`) recordings are a different wire
// format and out of this codec's scope.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ChatResponse, ContentBlock, StopReason, Usage } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { assemble, decodeSse, encodeEvents, readRecording, recordedSse, type Assembled } from "./openai.helpers.ts";
import { recordingsDir } from "../fakes/fixtures.ts";

/** Expected text of a block kind: exact text, or a prefix plus the full length for long answers. */
type TextFact = string | { startsWith: string; length: number };

interface Facts {
  guards: string;
  text?: TextFact;
  thinking?: TextFact;
  tools?: Array<{ name: string; input: unknown }>;
  stopReason: StopReason;
  usage: Usage;
}

const usage = (input: number, output: number, cacheRead = 0, reasoning?: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
  ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
});

const weatherSF = [{ name: "weather", input: { location: "San Francisco" } }];

const FIXTURES: Record<string, Facts> = {
  // ---- non-streaming responses ----
  "openai/chat__openai-text.json": {
    guards: "openai text completion keeps its text, stop → end_turn, zero reasoning tokens reported",
    text: { startsWith: "**Holiday Name:** Galaxy Day", length: 1842 },
    stopReason: "end_turn",
    usage: usage(16, 363, 0, 0),
  },
  "deepseek/chat__deepseek-json.json": {
    guards: "deepseek cached prompt tokens are split out of input tokens",
    text: '{\n  "location": "San Francisco",\n  "condition": "cloudy",\n  "temperature": 7\n}',
    thinking: { startsWith: "I have the result from the weather tool.", length: 558 },
    stopReason: "end_turn",
    usage: usage(175, 144, 320, 118),
  },
  "deepseek/chat__deepseek-reasoning.json": {
    guards: "deepseek reasoning_content becomes a thinking block before the answer",
    text: 'The word "strawberry" contains three instances of the letter "r": one after the "t" and two before the "y".',
    thinking: { startsWith: "We are asked: \"How many 'r's are in the word 'strawberry'?\"", length: 935 },
    stopReason: "end_turn",
    usage: usage(18, 345, 0, 315),
  },
  "deepseek/chat__deepseek-text.json": {
    guards: "deepseek finish_reason length becomes max_tokens",
    text: { startsWith: "## **Holiday Name: Gratitude of Small Things Day (GST Day)**", length: 1375 },
    stopReason: "max_tokens",
    usage: usage(13, 300),
  },
  "deepseek/chat__deepseek-tool-call.json": {
    guards: "deepseek tool call arguments are parsed, empty content adds no text block",
    thinking: { startsWith: "The user is asking for the weather in San Francisco.", length: 242 },
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(19, 92, 320, 48),
  },
  "groq/groq-reasoning.json": {
    guards: "groq `reasoning` field becomes a thinking block",
    text: { startsWith: 'The word "strawberry" contains **3** instances', length: 206 },
    thinking: { startsWith: "Okay, so the user is asking how many times", length: 1724 },
    stopReason: "end_turn",
    usage: usage(17, 649, 0, 570),
  },
  "groq/groq-text.json": {
    guards: "groq text completion with timing fields in usage",
    text: { startsWith: 'I\'d like to introduce "Luminaria"', length: 2953 },
    stopReason: "end_turn",
    usage: usage(45, 607),
  },
  "groq/groq-tool-call.json": {
    guards: "groq tool call without content field and with empty arguments object",
    tools: [{ name: "weather", input: {} }],
    stopReason: "tool_use",
    usage: usage(218, 15),
  },
  "mistral/mistral-reasoning.json": {
    guards: "mistral thinking content parts become a thinking block",
    text: "2 + 2 = 4",
    thinking: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
    stopReason: "end_turn",
    usage: usage(10, 46),
  },
  "mistral/mistral-text.json": {
    guards: "mistral text completion with tool_calls: null",
    text: { startsWith: '**Holiday Name: "World Kindness Day of Sharing"**', length: 1926 },
    stopReason: "end_turn",
    usage: usage(13, 434),
  },
  "mistral/mistral-tool-call.json": {
    guards: "mistral tool call without `type` is still a function call",
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(124, 22),
  },
  "xai/xai-text.json": {
    guards: "xai reasoning tokens missing from completion_tokens are counted as output",
    text: "Hello",
    thinking: { startsWith: 'First, the user said: "Say a single word."', length: 189 },
    stopReason: "end_turn",
    usage: usage(10, 229, 2, 228),
  },
  "xai/xai-tool-call.json": {
    guards: "xai tool call with reasoning and cached prompt",
    thinking: { startsWith: "First, the user is asking about the weather in San Francisco.", length: 357 },
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(47, 215, 244, 189),
  },
  "openai-compatible/chat__xai-text.json": {
    guards: "openai-compatible xai text with reasoning_content",
    text: "Grok",
    thinking: { startsWith: 'First, the user said: "Say a single word."', length: 1367 },
    stopReason: "end_turn",
    usage: usage(10, 322, 2, 320),
  },
  "openai-compatible/chat__xai-tool-call.json": {
    guards: "openai-compatible xai tool call",
    thinking: { startsWith: "First, the user is asking about the weather in San Francisco.", length: 1194 },
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(63, 281, 244, 255),
  },
  // ---- streams ----
  "openai/chat__azure-model-router.1.chunks.txt": {
    guards: "azure prompt-filter preamble chunk is skipped and usage after finish_reason is awaited",
    text: "Capital of Denmark.",
    stopReason: "end_turn",
    usage: usage(15, 78, 0, 64),
  },
  "openai/chat__openai-text.chunks.txt": {
    guards: "openai text stream with include_usage final chunk",
    text: { startsWith: "**Holiday Name:** Harmony Day", length: 1724 },
    stopReason: "end_turn",
    usage: usage(16, 300, 0, 0),
  },
  "deepseek/chat__deepseek-reasoning.chunks.txt": {
    guards: "deepseek streamed reasoning_content becomes a thinking block, closed before the text",
    text: 'The word "strawberry" contains three "r"s.',
    thinking: { startsWith: 'We need to count the number of the letter "r"', length: 606 },
    stopReason: "end_turn",
    usage: usage(18, 219, 0, 205),
  },
  "deepseek/chat__deepseek-text.chunks.txt": {
    guards: "deepseek stream with usage on the finish_reason chunk, length → max_tokens",
    text: { startsWith: "## **Holiday Name:** Starlight Remembran", length: 1855 },
    stopReason: "max_tokens",
    usage: usage(13, 400),
  },
  "deepseek/chat__deepseek-tool-call.chunks.txt": {
    guards: "deepseek streamed tool arguments reassemble into one object",
    thinking: { startsWith: "The user is asking", length: 191 },
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(19, 83, 320, 39),
  },
  "groq/groq-reasoning.chunks.txt": {
    guards: "groq streamed `reasoning` deltas become a thinking block",
    text: { startsWith: "The word **\"strawberry\"**", length: 347 },
    thinking: { startsWith: "Okay, let me try to figure out how many times the letter 'r'", length: 2952 },
    stopReason: "end_turn",
    usage: usage(17, 1107, 0, 963),
  },
  "groq/groq-text.chunks.txt": {
    guards: "groq text stream with usage on the finish_reason chunk",
    text: { startsWith: "Introducing \"Luminaria\" - a new holiday", length: 3189 },
    stopReason: "end_turn",
    usage: usage(45, 662),
  },
  "groq/groq-tool-call.chunks.txt": {
    guards: "groq streamed tool call sent whole in one chunk",
    tools: [{ name: "weather", input: {} }],
    stopReason: "tool_use",
    usage: usage(210, 15),
  },
  "mistral/mistral-incremental-tool-call.chunks.txt": {
    guards: "a repeated tool fragment with an empty name does not open a second tool block",
    tools: [{ name: "webSearchTool", input: { query: "current Berlin weather" } }],
    stopReason: "tool_use",
    usage: usage(43, 14, 128),
  },
  "mistral/mistral-reasoning.chunks.txt": {
    guards: "mistral streamed thinking parts become a thinking block",
    text: "2 + 2 = 4",
    thinking: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
    stopReason: "end_turn",
    usage: usage(10, 46),
  },
  "mistral/mistral-text.chunks.txt": {
    guards: "mistral text stream",
    text: "Hello, world! This is a test response.",
    stopReason: "end_turn",
    usage: usage(13, 8),
  },
  "mistral/mistral-tool-call.chunks.txt": {
    guards: "mistral streamed tool call without index, finish_reason and usage in the same chunk",
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(124, 22),
  },
  "xai/xai-text.chunks.txt": {
    guards: "xai stream: reasoning then text, usage chunk after finish_reason",
    text: "Hello",
    thinking: "First, the user said",
    stopReason: "end_turn",
    usage: usage(1, 291, 11, 290),
  },
  "xai/xai-tool-call.chunks.txt": {
    guards: "xai stream: thinking block closes when the tool call opens",
    thinking: "First, the user is",
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(1, 222, 290, 196),
  },
  "openai-compatible/chat__xai-text.chunks.txt": {
    guards: "openai-compatible xai text stream",
    text: "Grok",
    thinking: { startsWith: 'First, the user said: "Say a single word."', length: 1455 },
    stopReason: "end_turn",
    usage: usage(1, 342, 11, 340),
  },
  "openai-compatible/chat__xai-tool-call.chunks.txt": {
    guards: "openai-compatible xai tool call stream",
    thinking: { startsWith: "First, the user is asking about the weather in San Francisco.", length: 1069 },
    tools: weatherSF,
    stopReason: "tool_use",
    usage: usage(1, 253, 306, 227),
  },
};

const VENDOR_FOLDERS = ["openai", "deepseek", "groq", "mistral", "xai", "openai-compatible"];
const OUT_OF_SCOPE = /^(responses__|completion__)/;
/** Recorded errors are checked in openai.errors.test.ts, not as responses. */
const ERROR_RECORDINGS = new Set(["openai/chat__reasoning-model-legacy-parameter-error.json"]);

function textOf(content: ContentBlock[], kind: "text" | "thinking"): string | undefined {
  const texts = content.flatMap((b) => (b.type === kind && "text" in b ? [b.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}

function expectText(actual: string | undefined, fact: TextFact | undefined): void {
  if (fact === undefined) return expect(actual).toBeUndefined();
  if (typeof fact === "string") return expect(actual).toBe(fact);
  expect(actual?.startsWith(fact.startsWith)).toBe(true);
  expect(actual?.length).toBe(fact.length);
}

function expectFacts(res: ChatResponse | Assembled, facts: Facts): void {
  expectText(textOf(res.content, "text"), facts.text);
  expectText(textOf(res.content, "thinking"), facts.thinking);
  const tools = res.content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, input: b.input }] : []));
  expect(tools).toEqual(facts.tools ?? []);
  for (const b of res.content) if (b.type === "tool_use") expect(b.id).not.toBe("");
  expect(res.stopReason).toBe(facts.stopReason);
  expect(res.usage).toEqual(facts.usage);
}

describe("chat-completions recordings", () => {
  test("every chat recording in the vendor folders has expected facts", () => {
    const found = VENDOR_FOLDERS.flatMap((dir) =>
      readdirSync(path.join(recordingsDir(), dir))
        .filter((f) => !OUT_OF_SCOPE.test(f))
        .map((f) => `${dir}/${f}`),
    ).filter((f) => !ERROR_RECORDINGS.has(f));
    expect(found.sort()).toEqual(Object.keys(FIXTURES).sort());
  });

  for (const [file, facts] of Object.entries(FIXTURES)) {
    if (file.endsWith(".json")) {
      test(`${facts.guards} (${file})`, () => {
        const res = openaiCodec.decodeResponse(JSON.parse(readRecording(file)));
        expectFacts(res, facts);

        const again = openaiCodec.decodeResponse(openaiCodec.encodeResponse(res, { model: res.model }));
        expectFacts(again, facts);
        expect(again.content).toEqual(res.content);
        expect(again.created).toBe(res.created);
      });
    } else {
      test(`${facts.guards} (${file})`, () => {
        const decoded = assemble(decodeSse(recordedSse(file)));
        expectFacts(decoded, facts);

        const sse = encodeEvents(decodeSse(recordedSse(file)), { model: decoded.model, includeUsage: true });
        const again = assemble(decodeSse(sse));
        expectFacts(again, facts);
        expect(again.content).toEqual(decoded.content);
        expect(again.model).toBe(decoded.model);
      });
    }
  }
});
