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
// Run in its own process:
//   bun bench/skeleton.ts --upstream http://127.0.0.1:PORT [--port 0]
// Prints `LISTENING <url>` once ready; exits on SIGINT/SIGTERM.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RunWriter } from "../src/core/telemetry/writer.ts";
import { sinkStream } from "../src/runtime/sink-stream.ts";
import { SqliteStore } from "../src/store/sqlite.ts";
import type { RunRecord } from "../src/store/types.ts";
import { newRequestId } from "../src/surfaces/http.ts";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    port: { type: "string", default: "0" },
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
/** Relay's default upstream timeout (server.upstreamTimeoutMs). */
const UPSTREAM_TIMEOUT_MS = 600_000;

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

function record(id: string, at: number, start: number, model: string, stream: boolean, usage: Usage | undefined): RunRecord {
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
    costUsd: 0,
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
    const text = await request.text();
    const body = JSON.parse(text) as { model: string; stream?: boolean };
    const call = new AbortController();
    request.signal.addEventListener("abort", () => call.abort(), { once: true });
    const timeout = setTimeout(() => call.abort(), UPSTREAM_TIMEOUT_MS);
    const res = await fetch(upstream + new URL(request.url).pathname, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: request.headers.get("authorization") ?? "Bearer x" },
      body: text,
      signal: call.signal,
    });
    if (body.stream && res.body) {
      const answer = await relayStream(res.body, (usage) => (clearTimeout(timeout), writer.write(record(id, at, start, body.model, true, usage))));
      return new Response(answer, { status: res.status, headers: { "content-type": "text/event-stream", "x-svc-request-id": id } });
    }
    const answer = await res.text();
    clearTimeout(timeout);
    const usage = (JSON.parse(answer) as { usage?: Usage }).usage;
    await writer.write(record(id, at, start, body.model, false, usage));
    return new Response(answer, { status: res.status, headers: { "content-type": "application/json", "x-svc-request-id": id } });
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
