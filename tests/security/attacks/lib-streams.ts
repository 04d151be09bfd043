// Helpers of the stream attacks (issue 34, item 5): an Anthropic-style vendor
// that streams one huge SSE event or drips events forever, and the RSS figures
// of a process read from /proc.
import { readFileSync } from "node:fs";

export interface StreamVendor {
  url: string;
  /** Streams opened / cancelled by the client (Relay) / sent to their end. */
  stats: { opened: number; cancelled: number; finished: number };
  close(): Promise<void>;
}

const enc = new TextEncoder();
const PIECE = 64 * 1024;
/** One 64 KB piece of event text, sent as many times as an event needs: the vendor never holds the event whole. */
const FILLER = new Uint8Array(PIECE).fill(0x78); // "x"

const sse = (type: string, data: Record<string, unknown>) => enc.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
const MESSAGE_START = sse("message_start", {
  message: { id: "msg_attack", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } },
});
const BLOCK_START = sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
const delta = (text: string) => sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
const ENDING = [
  sse("content_block_stop", { index: 0 }),
  sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } }),
  sse("message_stop", {}),
];
const HUGE_HEAD = enc.encode(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`);
const HUGE_TAIL = enc.encode(`"}}\n\n`);

/** The pieces of one stream: a generator, so that a 50 MB event is never built whole. */
type Script = () => Generator<Uint8Array | number, void>;

/** A huge event of `bytes` bytes; `early`: before the first content (the client has no byte yet), else after a first delta. */
export function hugeEventScript(bytes: number, early = false): Script {
  return function* () {
    yield MESSAGE_START;
    if (!early) yield* [BLOCK_START, delta("Hello")];
    yield HUGE_HEAD;
    for (let sent = 0; sent < bytes; sent += PIECE) yield FILLER;
    yield HUGE_TAIL;
    if (early) yield BLOCK_START;
    yield* ENDING;
  };
}

/** A stream that never ends: one small delta every `everyMs` (a number yielded is a pause). */
export function dripScript(everyMs: number): Script {
  return function* () {
    yield* [MESSAGE_START, BLOCK_START];
    for (;;) {
      yield everyMs;
      yield delta("drip ");
    }
  };
}

/** A vendor that answers every POST /v1/messages with `script(i)` for the i-th request, pulled as the client reads. */
export function streamVendor(script: (i: number) => Script): StreamVendor {
  const stats = { opened: 0, cancelled: 0, finished: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (new URL(req.url).pathname !== "/v1/messages") return new Response("not found", { status: 404 });
      await req.text();
      const pieces = script(stats.opened++)();
      let over = false;
      const cancelled = () => {
        if (!over) (over = true), stats.cancelled++;
      };
      req.signal.addEventListener("abort", cancelled, { once: true });
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            for (;;) {
              if (over) return;
              const next = pieces.next();
              if (next.done) {
                over = true;
                stats.finished++;
                controller.close();
                return;
              }
              if (typeof next.value === "number") await Bun.sleep(next.value);
              else return controller.enqueue(next.value);
            }
          },
          cancel: cancelled,
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stats, close: () => server.stop(true) };
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

export interface StreamRead {
  status: number;
  text: string;
  bytes: number;
  /** The response ended (normally or with an error) before the deadline. */
  ended: boolean;
  ms: number;
}

/**
 * POST a streamed /v1/messages and read the answer to its end, for at most `deadlineMs`; keeps at
 * most `keep` characters of text (the rest is only counted), so that a relayed 50 MB event is
 * measured without being held.
 */
export async function readMessagesStream(url: string, deadlineMs: number, keep = 64 * 1024): Promise<StreamRead> {
  const t0 = performance.now();
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error("deadline")), deadlineMs);
  let text = "";
  let bytes = 0;
  let status = 0;
  let ended = false;
  try {
    const res = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-ant-client", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Say hi" }] }),
      signal: ac.signal,
    });
    status = res.status;
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      bytes += chunk.byteLength;
      if (text.length < keep) text += decoder.decode(chunk, { stream: true });
      // The tail is kept too: an error event comes last.
      else text = text.slice(0, keep / 2) + decoder.decode(chunk, { stream: true }).slice(-keep / 2);
    }
    ended = true;
  } catch {
    // the deadline passed, or the connection broke: `ended` stays false
  } finally {
    clearTimeout(timer);
  }
  return { status, text, bytes, ended, ms: performance.now() - t0 };
}

/** Poll until `check` holds (the machine is shared: generous bound). */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
  return true;
}
