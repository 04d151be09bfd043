/**
 * Issue 3 conformance matrix: the official OpenAI and Anthropic SDKs talk to a
 * real Relay, which talks to a fake of every vendor family. Every
 * (client format × vendor × stream) cell covers plain text, a two-tool parallel
 * call plus the follow-up turn with both results, an image input, and usage
 * with cached tokens.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { MODELS, PNG_BASE64, PNG_DATA_URL, VENDOR_KINDS, chatCalls, resetFakes, startWorld, type World } from "./harness.ts";
import { WIRE_VIEWS } from "./wire-views.ts";
import { CACHED_USAGE, CLOCK, CLOCK_RESULT, EXPECTED_CACHED, FINAL_ANSWER, SCRIPTED_IDS, WEATHER, WEATHER_RESULT, twoToolReply } from "./scripts.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.stop());
beforeEach(() => resetFakes(world));

const STREAM_MODES = [false, true] as const;
const modeName = (stream: boolean) => (stream ? "stream" : "non-stream");

// ---- OpenAI SDK on /v1/chat/completions ------------------------------------

const OPENAI_TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", description: "Weather now", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
  { type: "function", function: { name: "get_time", description: "Local time", parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] } } },
];

interface OpenAIResult {
  message: OpenAI.Chat.Completions.ChatCompletionMessage;
  finish: string | null;
  usage?: OpenAI.Completions.CompletionUsage | null;
}

/** One call through the SDK; streams are assembled by the SDK's own ChatCompletionStream. */
async function openaiChat(params: Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, "stream">, stream: boolean): Promise<OpenAIResult> {
  if (!stream) {
    const r = await world.openai.chat.completions.create({ ...params, stream: false });
    return { message: r.choices[0]!.message, finish: r.choices[0]!.finish_reason, usage: r.usage };
  }
  const runner = world.openai.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  runner.on("chunk", (c) => chunks.push(c));
  const final = await runner.finalChatCompletion();
  // With include_usage the usage arrives on a last chunk with no choices.
  const usageChunks = chunks.filter((c) => c.usage);
  expect(usageChunks).toHaveLength(1);
  expect(usageChunks[0]!.choices).toEqual([]);
  return { message: final.choices[0]!.message, finish: final.choices[0]!.finish_reason, usage: usageChunks[0]!.usage };
}

const OPENAI_CELLS = VENDOR_KINDS.flatMap((vendor) => STREAM_MODES.map((stream) => ({ vendor, stream, label: `${vendor} vendor, ${modeName(stream)}` })));

describe.each(OPENAI_CELLS)("OpenAI SDK → Relay → $label", ({ vendor, stream }) => {
  const model = MODELS[vendor];
  const fake = () => world.fakes[vendor];
  const view = WIRE_VIEWS[vendor];

  test("plain text", async () => {
    fake().enqueue({ text: "Bonjour from the vendor." });
    const r = await openaiChat({ model, messages: [{ role: "user", content: "Say hello" }] }, stream);
    expect(r.message.content).toBe("Bonjour from the vendor.");
    expect(r.finish).toBe("stop");
    expect(chatCalls(fake())).toHaveLength(1);
  });

  test("two parallel tool calls, then both results sent back", async () => {
    fake().enqueue(twoToolReply(vendor), { text: FINAL_ANSWER });
    const user: OpenAI.Chat.Completions.ChatCompletionMessageParam = { role: "user", content: "Weather and time in Paris?" };
    const first = await openaiChat({ model, messages: [user], tools: OPENAI_TOOLS }, stream);

    expect(first.finish).toBe("tool_calls");
    const calls = (first.message.tool_calls ?? []).map((c) => {
      if (c.type !== "function") throw new Error(`unexpected tool call type ${c.type}`);
      return { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) };
    });
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: WEATHER },
      { name: "get_time", args: CLOCK },
    ]);
    const ids = calls.map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toBeTruthy();
    if (SCRIPTED_IDS[vendor]) expect(ids).toEqual(SCRIPTED_IDS[vendor]!);

    const second = await openaiChat(
      {
        model,
        tools: OPENAI_TOOLS,
        messages: [
          user,
          { role: "assistant", content: first.message.content ?? null, tool_calls: first.message.tool_calls },
          { role: "tool", tool_call_id: ids[0]!, content: JSON.stringify(WEATHER_RESULT) },
          { role: "tool", tool_call_id: ids[1]!, content: JSON.stringify(CLOCK_RESULT) },
        ],
      },
      stream,
    );
    expect(second.message.content).toBe(FINAL_ANSWER);
    expect(second.finish).toBe("stop");

    // What the vendor received on the follow-up, read in its own wire format.
    const received = chatCalls(fake())[1]!.json;
    const sentCalls = view.toolCalls(received);
    expect(sentCalls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: WEATHER },
      { name: "get_time", args: CLOCK },
    ]);
    const results = view.toolResults(received);
    expect(results.map((r) => r.value)).toEqual([WEATHER_RESULT, CLOCK_RESULT]);
    if (view.carriesIds) {
      expect(sentCalls.map((c) => c.id)).toEqual(ids);
      expect(results.map((r) => r.id)).toEqual(ids);
    } else {
      // Id-less wires pair results with calls by function name.
      expect(results.map((r) => r.name)).toEqual(["get_weather", "get_time"]);
    }
  });

  test("image input (base64 data URL) reaches the vendor in its image format", async () => {
    fake().enqueue({ text: "A single pixel." });
    const r = await openaiChat(
      {
        model,
        messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: PNG_DATA_URL } }] }],
      },
      stream,
    );
    expect(r.message.content).toBe("A single pixel.");
    const images = view.images(chatCalls(fake())[0]!.json);
    expect(images).toHaveLength(1);
    expect(images[0]!.data).toBe(PNG_BASE64);
    // Ollama images are bare base64 with no media type on the wire.
    if (vendor !== "ollama") expect(images[0]!.mediaType).toBe("image/png");
  });

  test("usage with cached tokens in the fields the SDK parses", async () => {
    fake().enqueue({ text: "cached", usage: CACHED_USAGE });
    const r = await openaiChat({ model, messages: [{ role: "user", content: "hi" }] }, stream);
    // OpenAI accounting: prompt_tokens includes cache reads and writes; cached_tokens is the read part.
    expect(r.usage?.prompt_tokens).toBe(130);
    expect(r.usage?.completion_tokens).toBe(5);
    expect(r.usage?.total_tokens).toBe(135);
    expect(r.usage?.prompt_tokens_details?.cached_tokens ?? 0).toBe(EXPECTED_CACHED[vendor]);
  });
});

// ---- Anthropic SDK on /v1/messages ------------------------------------------

const ANTHROPIC_TOOLS: Anthropic.Tool[] = [
  { name: "get_weather", description: "Weather now", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "get_time", description: "Local time", input_schema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] } },
];

async function anthropicChat(params: Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">, stream: boolean): Promise<Anthropic.Message> {
  if (!stream) return world.anthropic.messages.create({ ...params, stream: false });
  return world.anthropic.messages.stream(params).finalMessage();
}

// /v1/messages serves Anthropic models only, so its single vendor is the Anthropic fake.
describe.each(STREAM_MODES.map((stream) => ({ stream, label: modeName(stream) })))("Anthropic SDK → Relay → anthropic vendor, $label", ({ stream }) => {
  const model = MODELS.anthropic;
  const fake = () => world.fakes.anthropic;
  const view = WIRE_VIEWS.anthropic;

  test("plain text", async () => {
    fake().enqueue({ text: "Bonjour from the vendor." });
    const m = await anthropicChat({ model, max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] }, stream);
    expect(m.content).toHaveLength(1);
    expect(m.content[0]).toMatchObject({ type: "text", text: "Bonjour from the vendor." });
    expect(m.stop_reason).toBe("end_turn");
  });

  test("two parallel tool calls, then both results sent back", async () => {
    fake().enqueue(twoToolReply("anthropic"), { text: FINAL_ANSWER });
    const user: Anthropic.MessageParam = { role: "user", content: "Weather and time in Paris?" };
    const first = await anthropicChat({ model, max_tokens: 256, tools: ANTHROPIC_TOOLS, messages: [user] }, stream);
    expect(first.stop_reason).toBe("tool_use");
    const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expect(uses.map((u) => ({ id: u.id, name: u.name, input: u.input }))).toEqual([
      { id: "toolu_weather_1", name: "get_weather", input: WEATHER },
      { id: "toolu_clock_2", name: "get_time", input: CLOCK },
    ]);

    const second = await anthropicChat(
      {
        model,
        max_tokens: 256,
        tools: ANTHROPIC_TOOLS,
        messages: [
          user,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: uses[0]!.id, content: JSON.stringify(WEATHER_RESULT) },
              { type: "tool_result", tool_use_id: uses[1]!.id, content: JSON.stringify(CLOCK_RESULT) },
            ],
          },
        ],
      },
      stream,
    );
    expect(second.content.find((b) => b.type === "text")).toMatchObject({ text: FINAL_ANSWER });
    expect(second.stop_reason).toBe("end_turn");

    const received = chatCalls(fake())[1]!.json;
    expect(view.toolCalls(received)).toEqual([
      { id: "toolu_weather_1", name: "get_weather", args: WEATHER },
      { id: "toolu_clock_2", name: "get_time", args: CLOCK },
    ]);
    expect(view.toolResults(received)).toEqual([
      { id: "toolu_weather_1", value: WEATHER_RESULT },
      { id: "toolu_clock_2", value: CLOCK_RESULT },
    ]);
  });

  test("image input (base64) reaches the vendor", async () => {
    fake().enqueue({ text: "A single pixel." });
    const m = await anthropicChat(
      {
        model,
        max_tokens: 64,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
            ],
          },
        ],
      },
      stream,
    );
    expect(m.content[0]).toMatchObject({ type: "text", text: "A single pixel." });
    expect(view.images(chatCalls(fake())[0]!.json)).toEqual([{ mediaType: "image/png", data: PNG_BASE64 }]);
  });

  test("usage with cached tokens in the fields the SDK parses", async () => {
    fake().enqueue({ text: "cached", usage: CACHED_USAGE });
    const m = await anthropicChat({ model, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, stream);
    // Anthropic accounting: input_tokens excludes the cache reads and writes.
    expect(m.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 });
  });
});

describe.each(VENDOR_KINDS.filter((k) => k !== "anthropic"))("Anthropic SDK asking for a %s model", (vendor) => {
  test("is refused with 400: /v1/messages only serves Anthropic models", async () => {
    const call = world.anthropic.messages.create({ model: MODELS[vendor], max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as Error).message).toContain("Native /v1/messages only supports Anthropic models");
    expect(chatCalls(world.fakes[vendor])).toHaveLength(0);
  });
});
