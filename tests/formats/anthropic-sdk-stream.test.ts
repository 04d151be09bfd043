// The official Anthropic SDK must be able to consume the stream encoder's output.
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import type { StreamEvent } from "../../src/core/ir.ts";

const usage = { inputTokens: 25, outputTokens: 90, cacheReadTokens: 7, cacheWriteTokens: 3 };

// No `start` event: the encoder must synthesize message_start itself.
const events: StreamEvent[] = [
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Two lookups " },
  { type: "thinking_delta", index: 0, text: "are needed." },
  { type: "signature_delta", index: 0, signature: "sig-abc" },
  { type: "block_stop", index: 0 },
  { type: "ping" },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Checking " },
  { type: "text_delta", index: 1, text: "both cities." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_use", id: "toolu_a", name: "weather" } },
  { type: "tool_args_delta", index: 2, json: '{"city":' },
  { type: "tool_args_delta", index: 2, json: '"Paris"}' },
  { type: "block_stop", index: 2 },
  { type: "block_start", index: 3, block: { type: "tool_use", id: "toolu_b", name: "clock" } },
  { type: "tool_args_delta", index: 3, json: "" },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: "tool_use", usage },
];

let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    fetch() {
      const enc = anthropicCodec.streamEncoder({ model: "relay-test-model", id: "msg_relay_1" });
      const body = events.map((e) => enc.encode(e)).join("") + enc.end();
      return new Response(body, { headers: { "content-type": anthropicCodec.streamContentType } });
    },
  });
});

afterAll(() => server.stop(true));

test("the official SDK's MessageStream assembles the encoded stream into the right message", async () => {
  const client = new Anthropic({ baseURL: server.url.origin, apiKey: "x", maxRetries: 0 });
  const stream = client.messages.stream({
    model: "relay-test-model",
    max_tokens: 100,
    messages: [{ role: "user", content: "weather in Paris and the time?" }],
  });
  const texts: string[] = [];
  stream.on("text", (t) => texts.push(t));
  const message = await stream.finalMessage();

  expect(message.id).toBe("msg_relay_1");
  expect(message.model).toBe("relay-test-model");
  expect(message.stop_reason).toBe("tool_use");
  expect(message.content).toEqual([
    { type: "thinking", thinking: "Two lookups are needed.", signature: "sig-abc" },
    { type: "text", text: "Checking both cities." },
    { type: "tool_use", id: "toolu_a", name: "weather", input: { city: "Paris" } },
    { type: "tool_use", id: "toolu_b", name: "clock", input: {} },
  ] as never);
  expect(texts.join("")).toBe("Checking both cities.");
  expect(message.usage).toMatchObject({
    input_tokens: 25,
    output_tokens: 90,
    cache_read_input_tokens: 7,
    cache_creation_input_tokens: 3,
  });
});
