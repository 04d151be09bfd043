/**
 * Controllable fake vendor servers speaking each vendor's documented wire
 * format, for tests and benchmarks. Renderers are written from the vendors'
 * docs and recordings, independently of the gateway's codecs.
 */
import type { FakeVendor, FakeVendorOptions, ReceivedRequest, Reply, VendorKind } from "./types.ts";
import type { ChatCall, Dialect } from "./render/dialect.ts";
import { openai } from "./render/openai.ts";
import { withResponses } from "./render/responses.ts";
import { anthropic } from "./render/anthropic.ts";
import { gemini } from "./render/gemini.ts";
import { ollama } from "./render/ollama.ts";
import { JSON_TYPE } from "./render/shared.ts";
import { planReply, type Plan } from "./plan.ts";
import { InFlight, deliver } from "./faults.ts";
import { recordingReply } from "./fixtures.ts";

export type { Fault, FakeVendor, FakeVendorOptions, ReceivedRequest, Reply, VendorKind } from "./types.ts";

const DIALECTS: Record<VendorKind, Dialect> = { openai: withResponses(openai), anthropic, gemini, ollama };

function parseJson(text: string): any {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function receive(request: Request): Promise<ReceivedRequest> {
  const url = new URL(request.url);
  const bodyText = await request.text();
  return {
    method: request.method,
    path: url.pathname,
    search: url.search,
    headers: Object.fromEntries(request.headers),
    bodyText,
    json: parseJson(bodyText),
    at: Date.now(),
  };
}

function callKey(call: ChatCall): string {
  return `${call.model}\u0000${call.stream}${call.includeUsage}${call.sse}${call.responses}`;
}

export async function startFakeVendor(kind: VendorKind, opts: FakeVendorOptions = {}): Promise<FakeVendor> {
  const dialect = DIALECTS[kind];
  const record = opts.recordRequests ?? true;
  const initialDefault: Reply = { text: `Hello from fake ${kind}` };
  const queue: Reply[] = [];
  const requests: ReceivedRequest[] = [];
  const inFlight = new InFlight();
  // Aborting this releases hanging responses when the fake is closed.
  const closing = new AbortController();
  let fallback: Reply | ((req: ReceivedRequest) => Reply) = initialDefault;
  // A fixed default reply renders identically every time: render it once per call shape (bench speed).
  let rendered = new Map<string, Plan>();

  function planFor(call: ChatCall, req: ReceivedRequest): [Reply, Plan] {
    const queued = queue.shift();
    if (queued) return [queued, planReply(dialect, queued, call)];
    if (typeof fallback === "function") {
      const reply = fallback(req);
      return [reply, planReply(dialect, reply, call)];
    }
    const key = callKey(call);
    let plan = rendered.get(key);
    if (!plan) {
      plan = planReply(dialect, fallback, call);
      rendered.set(key, plan);
    }
    return [fallback, plan];
  }

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: "127.0.0.1",
    // Hanging faults must hang until the client leaves, not until Bun's idle timer fires.
    idleTimeout: 0,
    async fetch(request) {
      const req = await receive(request);
      if (record) requests.push(req);
      const route = dialect.route(req);
      if (route.kind === "static") {
        const { status, body, headers } = route.answer;
        return new Response(body, { status, headers: { "content-type": JSON_TYPE, ...headers } });
      }
      const [reply, plan] = planFor(route.call, req);
      return deliver(plan, reply, AbortSignal.any([request.signal, closing.signal]), inFlight);
    },
  });
  const port = server.port!;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    setDefault(reply) {
      fallback = reply;
      rendered = new Map();
    },
    replayFixture: recordingReply,
    openConnections: () => inFlight.open,
    reset() {
      queue.length = 0;
      requests.length = 0;
      fallback = initialDefault;
      rendered = new Map();
    },
    async close() {
      closing.abort();
      await server.stop(true);
    },
  };
}

/** A local port with nothing listening (connections are refused). */
export async function closedPort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}
