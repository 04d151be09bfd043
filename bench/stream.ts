// Stream relay microbenchmark: the JS cost per stream of primeStream, in process (no HTTP).
// Vendor streams are the fake vendors' 20-text-chunk answers of the load benchmark (issue 5),
// read either one SSE event per read (a vendor that paces its events) or all in one read (what
// the load benchmark's instant vendor delivers over loopback, measured: one 5.4 KB read):
//  - passthrough: OpenAI vendor → OpenAI client (include_usage, final usage chunk, [DONE]);
//  - translate:   Anthropic vendor → OpenAI client (include_usage);
//  - baseline:    the same source streams read with no relay at all.
// Every case is run with two consumers: `new Response(stream).text()` (a whole-body
// destination, as Bun.serve is) and a reader loop (getReader().read()).
// Streams run CONCURRENCY at a time; figures are µs of wall time per stream (min and median of
// samples). A relayed stream is checked once before timing: a benchmark of broken output is worthless.
// Run: bun bench/stream.ts
import { defaults } from "../src/config/load.ts";
import { anthropicCodec } from "../src/core/formats/anthropic/index.ts";
import { openaiCodec } from "../src/core/formats/openai/index.ts";
import type { Codec } from "../src/core/formats/types.ts";
import { primeStream } from "../src/core/router/stream-relay.ts";
import { STREAM_CHUNKS, vendorFrames } from "./lib/vendor-frames.ts";

const CONCURRENCY = 50;
/** The default stream caps, built once: building the config per stream would be timed with it. */
const LIMITS = defaults().server;
const SAMPLES = 7;
const SAMPLE_MS = 400;

/** The framed events a fake vendor sends for the load benchmark's streamed answer. */
const vendorEvents = (kind: "openai" | "anthropic"): Uint8Array[] => vendorFrames(kind, "bench-model").map((p) => new TextEncoder().encode(p));

const EVENTS = { openai: vendorEvents("openai"), anthropic: vendorEvents("anthropic") };
/** The same streams as a single read each. */
const WHOLE = { openai: [Buffer.concat(EVENTS.openai)], anthropic: [Buffer.concat(EVENTS.anthropic)] };

/** A vendor body whose bytes have all arrived: each read returns one event. */
function source(events: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const e of events) controller.enqueue(e);
      controller.close();
    },
  });
}

let sink = 0;
let ended = 0;

async function relay(events: Uint8Array[], vendor: Codec): Promise<ReadableStream<Uint8Array>> {
  const primed = await primeStream({
    body: source(events),
    vendor,
    client: openaiCodec,
    passthrough: vendor === openaiCodec,
    clientModel: "bench-model",
    includeUsage: true,
    idleTimeoutMs: 30_000,
    limits: LIMITS,
    signal: new AbortController().signal,
    abort: () => {},
    onWait: () => {},
    onStart: () => {},
    onEnd: async (o) => {
      if (o.outcome === "ok") ended++;
    },
  });
  if (!primed.ok) throw new Error(`priming failed: ${primed.reason}`);
  return primed.body instanceof ReadableStream ? primed.body : new Response(primed.body).body!;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

type Consume = (stream: ReadableStream<Uint8Array>) => Promise<number>;
const byResponse: Consume = async (s) => (await new Response(s).text()).length;
const byReader: Consume = readAll;

/** One sample: mean µs of wall time per stream over rounds of CONCURRENCY streams for SAMPLE_MS. */
async function sample(one: () => Promise<number>): Promise<number> {
  let streams = 0;
  const start = Bun.nanoseconds();
  const until = start + SAMPLE_MS * 1e6;
  do {
    const sizes = await Promise.all(Array.from({ length: CONCURRENCY }, one));
    for (const n of sizes) sink += n;
    streams += CONCURRENCY;
  } while (Bun.nanoseconds() < until);
  return (Bun.nanoseconds() - start) / 1_000 / streams;
}

/** Passthrough must give the vendor's bytes back, translation OpenAI chunks ending in [DONE]. */
async function check(): Promise<void> {
  for (const src of [EVENTS, WHOLE]) {
    const piped = await new Response(await relay(src.openai, openaiCodec)).text();
    const translated = await new Response(await relay(src.anthropic, anthropicCodec)).text();
    if (piped !== new TextDecoder().decode(Buffer.concat(EVENTS.openai))) throw new Error("passthrough changed the vendor's bytes");
    if (!translated.includes('"object":"chat.completion.chunk"') || !translated.endsWith("data: [DONE]\n\n")) throw new Error(`bad translation:\n${translated}`);
  }
}

const cases: Array<[string, () => Promise<number>]> = [];
for (const [reads, src] of [["event per read", EVENTS], ["one read", WHOLE]] as const) {
  for (const [label, consume] of [["Response.text()", byResponse], ["reader loop", byReader]] as const) {
    cases.push(
      [`baseline openai source, ${reads}, ${label}`, () => consume(source(src.openai))],
      [`passthrough openai→openai, ${reads}, ${label}`, async () => consume(await relay(src.openai, openaiCodec))],
      [`baseline anthropic source, ${reads}, ${label}`, () => consume(source(src.anthropic))],
      [`translate anthropic→openai, ${reads}, ${label}`, async () => consume(await relay(src.anthropic, anthropicCodec))],
    );
  }
}

// Samples are interleaved across cases so that a burst of load from other processes on the
// machine spreads over all of them; the minimum is the least disturbed figure.
await check();
for (const [, fn] of cases) await sample(fn); // warm-up (JIT)
const samples = cases.map((): number[] => []);
for (let i = 0; i < SAMPLES; i++) {
  Bun.gc(true);
  for (const [c, [, fn]] of cases.entries()) samples[c]!.push(await sample(fn));
}

const width = Math.max(...cases.map(([name]) => name.length));
const fmt = (n: number) => n.toFixed(1).padStart(9);
console.log(`${STREAM_CHUNKS}-text-chunk streams (${EVENTS.openai.length} OpenAI / ${EVENTS.anthropic.length} Anthropic vendor events), ${CONCURRENCY} at a time`);
console.log(`${"case".padEnd(width)}  ${"min µs".padStart(9)}  ${"median".padStart(9)}   (µs of wall time per stream, ${SAMPLES} samples)`);
for (const [c, [name]] of cases.entries()) {
  const sorted = samples[c]!.sort((a, b) => a - b);
  console.log(`${name.padEnd(width)}  ${fmt(sorted[0]!)}  ${fmt(sorted[sorted.length >> 1]!)}`);
}
// Printing the counters keeps the measured work observable.
console.log(`\n(${ended} relayed streams ended ok; checksum ${sink % 1000})`);
