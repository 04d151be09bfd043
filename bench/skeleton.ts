// The least a gateway with Relay's guarantees can do per request on this
// runtime, to tell how much of Relay's distance from the floor is its own
// logic and how much is work no gateway here can skip: read the body and parse
// it (to know the model), call the vendor with the body as text, read the
// answer (a JSON answer parsed for its usage; a stream read in JavaScript, as a
// tap must, and sent whole or through Relay's sink as Relay does), record the run
// through Relay's own run log (RunWriter on the SQLite store, its writer thread
// and journal) and answer only once the record is durable, with a request id.
// The vendor call is aborted when the client leaves or a timeout passes, as
// Relay's is. No routing, limits, budgets, cooldown, access log or translation.
// --features adds, with Relay's own modules and the load bench's settings, what
// issue 5 switches on in every case and what every answer carries: the body
// read under Relay's size limit, the per-model rate limit, the hourly and daily
// budgets (a priced reservation, settled at the end), cooldown tracking, the
// access log line, and the answer's x-svc-* headers with the vendor's forwarded
// ones. Still no routing, request decoding or stream outcome tracking: the
// difference to Relay is Relay's general pipeline.
// Run in its own process:
//   bun bench/skeleton.ts --upstream http://127.0.0.1:PORT [--port 0] [--features]
// Prints `LISTENING <url>` once ready; exits on SIGINT/SIGTERM.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RunWriter } from "../src/core/telemetry/writer.ts";
import { sinkStream } from "../src/runtime/sink-stream.ts";
import { SqliteStore } from "../src/store/sqlite.ts";
import type { RunRecord } from "../src/store/types.ts";
import { readBody } from "../src/surfaces/body.ts";
import { newRequestId } from "../src/surfaces/http.ts";
import { type Admitted, SkeletonFeatures } from "./lib/skeleton-features.ts";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    port: { type: "string", default: "0" },
    features: { type: "boolean", default: false },
  },
});
if (!values.upstream) {
  console.error("--upstream <origin> is required");
  process.exit(2);
}
const upstream = new URL(values.upstream).origin;
const home = mkdtempSync(join(tmpdir(), "relay-skeleton-"));
const store = new SqliteStore(join(home, "runs.db"));
await store.migrate();
const writer = new RunWriter(store);
const features = values.features ? new SkeletonFeatures(store) : undefined;
/** Relay's default body limit (server.bodyLimitBytes), which --features reads under. */
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** Relay's default upstream timeout (server.upstreamTimeoutMs). */
const UPSTREAM_TIMEOUT_MS = 600_000;

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

function record(id: string, at: number, start: number, model: string, stream: boolean, usage: Usage | undefined, costUsd: number): RunRecord {
  return {
    id,
    ts: at,
    latencyMs: performance.now() - start,
    requestedModel: model,
    routedModel: model,
    provider: "openai",
    strategy: "direct",
    status: 200,
    outcome: "ok",
    stream,
    clientFormat: "openai",
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd,
    fallbackUsed: false,
    attempts: 1,
    events: [],
    reasons: [],
    metadata: {},
    overheadMs: 0,
  };
}

/** The usage of the event in `text` that carries one (OpenAI's include_usage chunk; the others say `"usage":null`). */
function usageIn(text: string): Usage | undefined {
  const at = text.lastIndexOf('"usage":{');
  if (at < 0) return undefined;
  const line = text.lastIndexOf("data: ", at) + 6;
  const end = text.indexOf("\n", at);
  // An event cut across two reads is not parsed (loopback delivers the bench's streams whole).
  return end < 0 ? undefined : (JSON.parse(text.slice(line, end)) as { usage: Usage }).usage;
}

/**
 * A stream's answer. As Relay does, an answer that arrived whole in the first read (its `[DONE]`
 * seen, its end next) is logged and sent as one body; any other is written through Relay's sink as
 * it is read, and logged at its end.
 */
async function relayStream(body: ReadableStream<Uint8Array>, log: (usage: Usage | undefined) => Promise<void>): Promise<Uint8Array | string | ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  if (first.done) return (await log(undefined), "");
  const text = decoder.decode(first.value, { stream: true });
  let usage = usageIn(text);
  let next: Awaited<ReturnType<typeof reader.read>> | undefined;
  if (text.includes("data: [DONE]")) {
    next = await reader.read();
    if (next.done) return (await log(usage), first.value);
  }
  return sinkStream({
    async pull(sink) {
      let full = sink.write(first.value);
      for (;;) {
        if (typeof full !== "number") await full;
        const r = next ?? (await reader.read());
        next = undefined;
        if (r.done) break;
        usage = usageIn(decoder.decode(r.value, { stream: true })) ?? usage;
        full = sink.write(r.value);
      }
      await log(usage);
      sink.close();
    },
    cancel: (reason) => void reader.cancel(reason).catch(() => {}),
  });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  idleTimeout: 255,
  async fetch(request) {
    const start = performance.now();
    const at = Date.now();
    const id = newRequestId(at);
    const path = new URL(request.url).pathname;
    const text = features ? await readBody(request, BODY_LIMIT_BYTES) : await request.text();
    const body = JSON.parse(text) as { model: string; stream?: boolean; max_tokens?: number };
    let admitted: Admitted | undefined;
    if (features) {
      const a = features.admit(body.model, text.length, body.max_tokens);
      const decided = a instanceof Promise ? await a : a;
      if (decided instanceof Response) return decided;
      admitted = decided;
    }
    const call = new AbortController();
    request.signal.addEventListener("abort", () => call.abort(), { once: true });
    const timeout = setTimeout(() => call.abort(), UPSTREAM_TIMEOUT_MS);
    const res = await fetch(upstream + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: request.headers.get("authorization") ?? "Bearer x" },
      body: text,
      signal: call.signal,
    });
    /** The answer's cost, once its usage is known (features only). */
    let cost: number | undefined;
    const ended = (usage: Usage | undefined): void => {
      clearTimeout(timeout);
      if (admitted) cost = features!.settle(admitted, usage);
    };
    const headers = (contentType: string): Record<string, string> =>
      admitted ? features!.headers(contentType, id, admitted, cost ?? admitted.estimateUsd, start, res.headers) : { "content-type": contentType, "x-svc-request-id": id };
    let answer: Response;
    if (body.stream && res.body) {
      const relayed = await relayStream(res.body, (usage) => (ended(usage), writer.write(record(id, at, start, body.model, true, usage, cost ?? 0))));
      answer = new Response(relayed, { status: res.status, headers: headers("text/event-stream") });
    } else {
      const text = await res.text();
      const usage = (JSON.parse(text) as { usage?: Usage }).usage;
      ended(usage);
      await writer.write(record(id, at, start, body.model, false, usage, cost ?? 0));
      answer = new Response(text, { status: res.status, headers: headers("application/json") });
    }
    features?.access(id, request.method, path, answer.status, start);
    return answer;
  },
});

console.log(`LISTENING ${server.url.href.replace(/\/$/, "")}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () =>
    void server
      .stop(true)
      .then(() => writer.close())
      .then(() => store.close())
      .finally(() => {
        rmSync(home, { recursive: true, force: true });
        process.exit(0);
      }),
  );
}
