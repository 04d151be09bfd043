// Relay's real app handler in this process, without sockets: startRelay, the
// app `relay start` serves (SQLite run log on its writer thread, limits on as in
// bench/run.ts, access log lines built but not written), with every vendor call
// answered in-process by the load bench's fake answer. Used by the in-process
// benches (alloc.ts for allocations, request-io.ts for disk writes).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRelay } from "../../src/index.ts";
import { BENCH_CONFIG } from "./stack.ts";
import { vendorFrames } from "./vendor-frames.ts";

export interface InProcessOptions {
  model?: string;
  telemetry: boolean;
  limits: boolean;
  /** stream: true, the vendor answering the load bench's 20-chunk stream in one read (what loopback delivers). */
  stream: boolean;
  vendor: "openai" | "anthropic";
}

/** The command-line flags that choose the stack's request path, shared by the in-process benches. */
export const STACK_FLAGS = {
  model: { type: "string" },
  "no-telemetry": { type: "boolean", default: false },
  "no-limits": { type: "boolean", default: false },
  stream: { type: "boolean", default: false },
  vendor: { type: "string", default: "openai" },
} as const;

interface StackFlagValues {
  model?: string;
  "no-telemetry"?: boolean;
  "no-limits"?: boolean;
  stream?: boolean;
  vendor?: string;
}

export const stackOptions = (v: StackFlagValues): InProcessOptions => ({
  model: v.model,
  telemetry: !v["no-telemetry"],
  limits: !v["no-limits"],
  stream: Boolean(v.stream),
  vendor: v.vendor === "anthropic" ? "anthropic" : "openai",
});

export interface InProcessRelay {
  /** The model requested (defaults to gpt-4o-mini, or claude-haiku-4-5 for the Anthropic vendor). */
  readonly model: string;
  /** The request path in words, for a bench's output: "gpt-4o-mini, streamed from openai, limits off". */
  readonly label: string;
  /** Sends `n` requests, 50 at a time; throws on any answer but a 200. */
  drive(n: number): Promise<void>;
  close(): Promise<void>;
}

const CONCURRENCY = 50;
const VENDOR_ORIGIN = "http://vendor.invalid";

/** What the load bench's fake vendor answers, byte for byte in shape. */
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

export async function startInProcess(opts: InProcessOptions): Promise<InProcessRelay> {
  const model = opts.model ?? (opts.vendor === "anthropic" ? "claude-haiku-4-5" : "gpt-4o-mini");
  const config = structuredClone(BENCH_CONFIG) as typeof BENCH_CONFIG & { limits: Record<string, number> };
  if (!opts.telemetry) config.telemetry.enabled = false;
  if (!opts.limits) config.limits = { rpmDefault: 0, hourlyUsd: 0, dailyUsd: 0 };

  const home = mkdtempSync(join(tmpdir(), "relay-in-process-"));
  const file = join(home, "config.json");
  writeFileSync(file, JSON.stringify({ ...config, pluginsDirs: [join(home, "plugins")] }));
  const env = { RELAY_HOME: home, OPENAI_BASE_URL: `${VENDOR_ORIGIN}/v1`, OPENAI_API_KEY: "x", ANTHROPIC_BASE_URL: VENDOR_ORIGIN, ANTHROPIC_API_KEY: "x" };
  const relay = await startRelay({ configFile: file, env, logSink: () => {} });

  const streamBody = new TextEncoder().encode(vendorFrames(opts.vendor, model).join(""));
  const vendorAnswer = (): Response =>
    opts.stream
      ? new Response(new ReadableStream({ start: (c) => (c.enqueue(streamBody), c.close()) }), { headers: { "content-type": "text/event-stream" } })
      : new Response(VENDOR_BODY, { headers: { "content-type": "application/json", "content-length": String(VENDOR_BODY.length) } });
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
    String(input).startsWith(VENDOR_ORIGIN) ? Promise.resolve(vendorAnswer()) : realFetch(input, init)) as typeof fetch;

  const body = JSON.stringify({
    model,
    messages: [
      { role: "system", content: "You are a concise assistant." },
      { role: "user", content: "Summarise the benefits of HTTP connection pooling in two sentences." },
    ],
    max_tokens: 256,
    ...(opts.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
  const headers = { "content-type": "application/json", "content-length": String(body.length) };

  async function one(): Promise<void> {
    const res = await relay.fetch(new Request("http://127.0.0.1:4100/v1/chat/completions", { method: "POST", headers, body }));
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    await res.text();
  }

  const label = `${model}${opts.stream ? `, streamed from ${opts.vendor}` : ""}${opts.telemetry ? "" : ", telemetry off"}${opts.limits ? "" : ", limits off"}`;
  return {
    model,
    label,
    async drive(n) {
      let started = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (started++ < n) await one();
        }),
      );
    },
    async close() {
      globalThis.fetch = realFetch;
      await relay.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
