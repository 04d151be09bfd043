// Graceful shutdown loses nothing: SIGTERM while hundreds of requests (some
// slow, one a slow stream) are in flight. Every request the gateway accepted
// gets its complete answer, the process exits 0, and the run log in SQLite
// holds a record for every request that got a response.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor, ReceivedRequest, Reply } from "../fakes/types.ts";
import { FROM_SOURCE, childEnv, startRelayProcess, tempDir, type RunningRelay } from "../cli/relay-process.ts";

const TOTAL = 300;
const SLOW_EVERY = 5;
const SLOW_MS = 1500;
const STREAM_WORDS = ["one", "two", "three", "four", "five", "six"];

const isSlow = (i: number) => i % SLOW_EVERY === 0;
const answerFor = (i: number) => `answer to request ${i}`;

/** The request index the client put in the prompt, or -1 for the stream. */
function indexOf(req: ReceivedRequest): number {
  const m = /request (\d+)/.exec(String(req.json?.messages?.[0]?.content ?? ""));
  return m ? Number(m[1]) : -1;
}

function replyFor(req: ReceivedRequest): Reply {
  if (req.json?.stream) return { text: STREAM_WORDS.join(" "), textChunks: STREAM_WORDS.length, chunkDelayMs: 300 };
  const i = indexOf(req);
  return { text: answerFor(i), latencyMs: isSlow(i) ? SLOW_MS : 0, usage: { input: 10, output: 5 } };
}

interface Outcome {
  index: number;
  status?: number;
  requestId?: string | null;
  text?: string;
  error?: string;
}

let vendor: FakeVendor;
let server: RunningRelay;
const home = tempDir("shutdown");

beforeAll(async () => {
  vendor = await startFakeVendor("anthropic");
  vendor.setDefault(replyFor);
  server = await startRelayProcess(FROM_SOURCE, { env: childEnv(home, { ANTHROPIC_BASE_URL: vendor.url, ANTHROPIC_API_KEY: "test-key" }) });
});

afterAll(async () => {
  await server?.stop("SIGKILL");
  await vendor?.close();
  rmSync(home, { recursive: true, force: true });
});

function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 64, ...body }),
  });
}

async function chatRequest(index: number): Promise<Outcome> {
  try {
    const res = await post({ messages: [{ role: "user", content: `request ${index}` }] });
    const body = (await res.json()) as { content?: Array<{ text: string }> };
    return { index, status: res.status, requestId: res.headers.get("x-svc-request-id"), text: body.content?.map((b) => b.text).join("") };
  } catch (e) {
    return { index, error: String(e) };
  }
}

async function streamRequest(): Promise<Outcome & { events: string[] }> {
  const res = await post({ stream: true, messages: [{ role: "user", content: "stream please" }] });
  const raw = await res.text();
  const events = [...raw.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]!);
  const text = [...raw.matchAll(/^data: (.*)$/gm)]
    .map((m) => JSON.parse(m[1]!) as { type: string; delta?: { type: string; text?: string } })
    .filter((d) => d.type === "content_block_delta" && d.delta?.type === "text_delta")
    .map((d) => d.delta!.text)
    .join("");
  return { index: -1, status: res.status, requestId: res.headers.get("x-svc-request-id"), text, events };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

test(
  "SIGTERM with requests in flight: exit 0, complete answers, every answered request in the run log",
  async () => {
    const stream = streamRequest();
    await waitFor(() => vendor.requests.some((r) => r.json?.stream), "the stream to reach the vendor");
    const chats = Array.from({ length: TOTAL }, (_, i) => chatRequest(i));

    // Signal while slow requests and the stream are still being answered.
    await waitFor(() => vendor.requests.length > TOTAL / 3 && vendor.openConnections() > 0, "requests to be in flight");
    const acceptedBeforeSigterm = new Set(vendor.requests.map(indexOf).filter((i) => i >= 0));
    const slowInFlight = [...acceptedBeforeSigterm].filter(isSlow);
    expect(slowInFlight.length).toBeGreaterThan(0);
    server.proc.kill("SIGTERM");

    const [outcomes, streamed] = await Promise.all([Promise.all(chats), stream]);
    expect(await server.stop("SIGTERM", 20_000)).toBe(0);

    // Every request that got a response got a complete, correct one.
    const answered = outcomes.filter((o) => o.status !== undefined);
    for (const o of answered) {
      expect(o.status).toBe(200);
      expect(o.text).toBe(answerFor(o.index));
      expect(o.requestId).toMatch(/^req_\w+$/);
    }
    // Requests the vendor had received before SIGTERM were in flight in Relay: none may be cut.
    const answeredIndexes = new Set(answered.map((o) => o.index));
    for (const i of acceptedBeforeSigterm) expect(answeredIndexes.has(i)).toBe(true);
    expect(answered.length).toBeGreaterThanOrEqual(acceptedBeforeSigterm.size);

    // The slow stream that was mid-flight at SIGTERM finished properly.
    expect(streamed.status).toBe(200);
    expect(streamed.text).toBe(STREAM_WORDS.join(" "));
    expect(streamed.events.at(-1)).toBe("message_stop");

    const stopped = server.logs().find((r) => r.msg === "stopped");
    expect(stopped?.forcedConnections).toBe(0);

    // After exit, the SQLite run log holds every answered request.
    const db = new Database(join(home, "data", "relay.db"), { readonly: true });
    try {
      const ids = new Set(db.query<{ id: string }, []>("SELECT id FROM runs").all().map((r) => r.id));
      const expected = [...answered.map((o) => o.requestId!), streamed.requestId!];
      const missing = expected.filter((id) => !ids.has(id));
      expect(missing).toEqual([]);
      const streamRow = db.query<{ stream: number; status: number; outcome: string }, [string]>("SELECT stream, status, outcome FROM runs WHERE id = ?").get(streamed.requestId!);
      expect(streamRow).toMatchObject({ stream: 1, status: 200 });
    } finally {
      db.close();
    }
  },
  60_000,
);
