// CPU cost of Relay's non-streaming request path, without sockets: the real
// app handler (the same buildFetch `relay start` serves, SQLite run log on its
// writer thread, limits on as in bench/run.ts, access log lines built but not
// written) called 50 requests at a time,
// with the vendor call answered in-process by a canned OpenAI response. It
// prints the request thread's CPU time per request (read from /proc, so the
// writer thread is counted apart), which is what caps throughput in the load
// bench. Linux only (/proc).
// --stream sends stream: true and the vendor answers the load bench's 20-chunk stream in one
// read (what loopback delivers); --vendor anthropic makes it an OpenAI → Anthropic translation
// (the model defaults to gpt-4o-mini, or claude-haiku-4-5 with --vendor anthropic).
//   bun bench/request-path.ts [--model svc:auto] [--requests 100000] [--no-telemetry] [--no-limits] [--stream] [--vendor anthropic]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/load.ts";
import { createLogger } from "../src/core/log.ts";
import { Relay } from "../src/relay.ts";
import { buildFetch } from "../src/surfaces/index.ts";
import { mainThread, threadTimes } from "./lib/cpu-time.ts";
import { BENCH_CONFIG } from "./lib/stack.ts";
import { vendorFrames } from "./lib/vendor-frames.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    requests: { type: "string", default: "100000" },
    "no-telemetry": { type: "boolean", default: false },
    "no-limits": { type: "boolean", default: false },
    stream: { type: "boolean", default: false },
    vendor: { type: "string", default: "openai" },
  },
});
const REQUESTS = Number(values.requests);
// The model picks the vendor Relay calls: an Anthropic stream needs an Anthropic model.
const MODEL = values.model ?? (values.vendor === "anthropic" ? "claude-haiku-4-5" : "gpt-4o-mini");
const CONCURRENCY = 50;
const VENDOR_ORIGIN = "http://vendor.invalid";

const config = structuredClone(BENCH_CONFIG) as typeof BENCH_CONFIG & { limits: Record<string, number> };
if (values["no-telemetry"]) config.telemetry.enabled = false;
if (values["no-limits"]) config.limits = { rpmDefault: 0, hourlyUsd: 0, dailyUsd: 0 };

const home = mkdtempSync(join(tmpdir(), "relay-request-path-"));
const file = join(home, "config.json");
writeFileSync(file, JSON.stringify({ ...config, pluginsDirs: [join(home, "plugins")] }));
const env = { RELAY_HOME: home, OPENAI_BASE_URL: `${VENDOR_ORIGIN}/v1`, OPENAI_API_KEY: "x", ANTHROPIC_BASE_URL: VENDOR_ORIGIN, ANTHROPIC_API_KEY: "x" };
const relay = await Relay.create({ loaded: loadConfig({ file, env }), env, log: createLogger("info", () => {}) });
const handle = buildFetch(relay, "start");

// What the load bench's fake vendor answers, byte for byte in shape.
const VENDOR_BODY = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_795_394_742,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello from fake openai. This reply is long enough to be split into several stream events.", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 23, total_tokens: 35, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 } },
  service_tier: "default",
  system_fingerprint: "fp_fake",
});
/** The load bench's fake vendor stream, as one read. */
const STREAM_BODY = new TextEncoder().encode(vendorFrames(values.vendor === "anthropic" ? "anthropic" : "openai", MODEL).join(""));
const vendorAnswer = (): Response =>
  values.stream
    ? new Response(new ReadableStream({ start: (c) => (c.enqueue(STREAM_BODY), c.close()) }), { headers: { "content-type": "text/event-stream" } })
    : new Response(VENDOR_BODY, { headers: { "content-type": "application/json", "content-length": String(VENDOR_BODY.length) } });
const realFetch = globalThis.fetch;
globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
  String(input).startsWith(VENDOR_ORIGIN) ? Promise.resolve(vendorAnswer()) : realFetch(input, init)) as typeof fetch;

const BODY = JSON.stringify({
  model: MODEL,
  messages: [
    { role: "system", content: "You are a concise assistant." },
    { role: "user", content: "Summarise the benefits of HTTP connection pooling in two sentences." },
  ],
  max_tokens: 256,
  ...(values.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});

async function one(): Promise<void> {
  const res = await handle(new Request("http://127.0.0.1:4100/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", "content-length": String(BODY.length) }, body: BODY }));
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  await res.text();
}

async function drive(n: number): Promise<void> {
  let started = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (started++ < n) await one();
  }));
}

/** CPU µs of this process's main thread so far. */
const mainThreadCpuUs = (): number => mainThread(threadTimes(process.pid));

try {
  await drive(Math.min(20_000, REQUESTS)); // JIT warm-up
  const cpu0 = mainThreadCpuUs();
  const all0 = process.cpuUsage();
  const t0 = performance.now();
  await drive(REQUESTS);
  const wallUs = ((performance.now() - t0) * 1000) / REQUESTS;
  const mainUs = (mainThreadCpuUs() - cpu0) / REQUESTS;
  const all = process.cpuUsage(all0);
  const allUs = (all.user + all.system) / REQUESTS;
  console.log(
    `${MODEL}${values.stream ? `, streamed from ${values.vendor}` : ""}${values["no-telemetry"] ? ", telemetry off" : ""}${values["no-limits"] ? ", limits off" : ""}: ` +
      `request thread ${mainUs.toFixed(1)} µs CPU per request, all threads ${allUs.toFixed(1)} µs, wall ${wallUs.toFixed(1)} µs (${REQUESTS.toLocaleString("en-US")} requests, ${CONCURRENCY} at a time)`,
  );
} finally {
  await relay.close();
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);
