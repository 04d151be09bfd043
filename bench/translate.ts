// Translation bench: CPU cost per request of Relay's codec work, with no network.
//  (a) non-stream: OpenAI request → Anthropic body, Anthropic response → OpenAI body;
//  (b) stream: a 500-event Anthropic stream parsed, decoded and re-encoded as OpenAI chunks;
//  (c) passthrough: the same-format path on the same stream — the request is parsed and
//      decoded (routing needs it), the stream only tapped (SSE-parsed; events that can carry
//      usage, a stop reason or an error are decoded for telemetry).
// Run: node_modules/.bin/bun bench/translate.ts

import { codecFor, SseParser, type RawStreamEvent } from "../src/index.ts";

const anthropicCodec = codecFor("anthropic");
const openaiCodec = codecFor("openai");

const STREAM_EVENTS = 500;
const WARM_MS = 400;
const MEASURE_MS = 1_200;

const openaiRequest = JSON.stringify({
  model: "claude-haiku-4-5",
  max_completion_tokens: 1024,
  temperature: 0.3,
  stream: true,
  stream_options: { include_usage: true },
  messages: [
    { role: "system", content: "You are a concise assistant for a travel agency." },
    { role: "user", content: "What is the weather in Paris and the local time there?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Paris"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: '{"temp_c":21,"sky":"clear"}' },
    { role: "tool", tool_call_id: "call_2", content: '{"time":"14:05"}' },
  ],
  tools: ["get_weather", "get_time"].map((name) => ({
    type: "function",
    function: { name, description: `Look up ${name}`, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  })),
});

/** The OpenAI request's Anthropic twin, so the passthrough case parses a body of the same size. */
const anthropicRequest = JSON.stringify(
  anthropicCodec.encodeRequest(openaiCodec.decodeRequest(JSON.parse(openaiRequest)), { model: "claude-haiku-4-5", defaultMaxTokens: 4096 }).body,
);

const anthropicResponse = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [
    { type: "text", text: "It is 21°C and clear in Paris; the local time is 14:05. ".repeat(4) },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Lyon" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 420, output_tokens: 96, cache_read_input_tokens: 1200, cache_creation_input_tokens: 0 },
});

/** A 500-event Anthropic stream, one event per network read, as bytes. */
function anthropicStream(): Uint8Array[] {
  const frame = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const deltas = STREAM_EVENTS - 5;
  const events = [
    frame("message_start", { type: "message_start", message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage: { input_tokens: 420, output_tokens: 1 } } }),
    frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    ...Array.from({ length: deltas }, (_, i) => frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `token${i} ` } })),
    frame("content_block_stop", { type: "content_block_stop", index: 0 }),
    frame("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: deltas } }),
    frame("message_stop", { type: "message_stop" }),
  ];
  const encoder = new TextEncoder();
  return events.map((e) => encoder.encode(e));
}

const streamBytes = anthropicStream();
/** Written by every case so the work cannot be optimised away. */
let sink = 0;

function translateNonStream(): void {
  const ir = openaiCodec.decodeRequest(JSON.parse(openaiRequest));
  const vendorBody = JSON.stringify(anthropicCodec.encodeRequest(ir, { model: "claude-haiku-4-5", defaultMaxTokens: 4096 }).body);
  const res = anthropicCodec.decodeResponse(JSON.parse(anthropicResponse));
  const clientBody = JSON.stringify(openaiCodec.encodeResponse(res, { model: "claude-haiku-4-5" }));
  sink += vendorBody.length + clientBody.length;
}

function translateStream(): void {
  const ir = openaiCodec.decodeRequest(JSON.parse(openaiRequest));
  sink += JSON.stringify(anthropicCodec.encodeRequest(ir, { model: "claude-haiku-4-5", defaultMaxTokens: 4096 }).body).length;
  const parser = new SseParser();
  const decoder = anthropicCodec.streamDecoder();
  const encoder = openaiCodec.streamEncoder({ model: "claude-haiku-4-5", includeUsage: true });
  for (const chunk of streamBytes) for (const raw of parser.push(chunk)) for (const ev of decoder.push(raw)) sink += encoder.encode(ev).length;
  for (const raw of parser.end()) for (const ev of decoder.push(raw)) sink += encoder.encode(ev).length;
  for (const ev of decoder.end()) sink += encoder.encode(ev).length;
  sink += encoder.end().length;
}

function passthroughStream(): void {
  // Same-format: the client body is parsed and decoded for routing, then sent as is; the
  // stream is SSE-parsed and, as the relay does, only events that can carry the outcome are decoded.
  sink += anthropicCodec.decodeRequest(JSON.parse(anthropicRequest)).messages.length;
  const parser = new SseParser();
  const decoder = anthropicCodec.streamDecoder();
  let first = true;
  const tap = (raw: RawStreamEvent) => {
    if (first || anthropicCodec.carriesOutcome(raw)) sink += decoder.push(raw).length;
    first = false;
  };
  for (const chunk of streamBytes) for (const raw of parser.push(chunk)) tap(raw);
  for (const raw of parser.end()) tap(raw);
  sink += decoder.end().length;
}

/** Mean µs per call: warm the JIT, then run for a fixed wall time. */
function measure(fn: () => void): { micros: number; iterations: number } {
  const warmUntil = performance.now() + WARM_MS;
  while (performance.now() < warmUntil) fn();
  let iterations = 0;
  const start = Bun.nanoseconds();
  const until = start + MEASURE_MS * 1e6;
  do {
    for (let i = 0; i < 10; i++) fn();
    iterations += 10;
  } while (Bun.nanoseconds() < until);
  return { micros: (Bun.nanoseconds() - start) / 1_000 / iterations, iterations };
}

const cases = [
  { name: "(a) non-stream translate: OpenAI req → Anthropic → OpenAI res", fn: translateNonStream },
  { name: `(b) stream translate: ${STREAM_EVENTS}-event Anthropic → OpenAI chunks`, fn: translateStream },
  { name: `(c) passthrough: parse + SSE tap of the same ${STREAM_EVENTS} events`, fn: passthroughStream },
];

const results = cases.map((c) => ({ ...c, ...measure(c.fn) }));
const passthrough = results[2]!.micros;
const width = Math.max(...results.map((r) => r.name.length));
console.log(`${"case".padEnd(width)}  ${"µs/request".padStart(11)}  ${"iterations".padStart(10)}  ${"vs (c)".padStart(7)}`);
for (const r of results) {
  console.log(`${r.name.padEnd(width)}  ${r.micros.toFixed(1).padStart(11)}  ${String(r.iterations).padStart(10)}  ${(r.micros / passthrough).toFixed(2).padStart(6)}×`);
}
const perEvent = (results[1]!.micros - passthrough) / STREAM_EVENTS;
// Printing the sink keeps the measured work observable.
console.log(`\nre-encoding adds ${perEvent.toFixed(2)} µs per stream event over passthrough (checksum ${sink % 1000})`);
