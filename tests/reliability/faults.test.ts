// Issue 6.1: vendor faults. Every fault is injected through both official SDKs
// (OpenAI on /v1/chat/completions, Anthropic on /v1/messages) and, where a chain
// is configured, must be absorbed by a fallback. For each: the client's status
// and error shape, the run log, the cooldown count, and no leak (vendor
// connections, Relay's in-flight requests, heap over 20 runs of the matrix).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closedPort, startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import type { Reply } from "../fakes/types.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { eventually } from "../proxy/world.ts";
import { LONG_TEXT, type Script, type Seen, scriptVendors, viaAnthropic, viaOpenAI } from "./fault-world.ts";

const TIMEOUT_MS = 1000; // the configurable minimum of both vendor timeouts
const HUGE_TEXT_BYTES = 20 * 1024 * 1024; // what the fake's `huge` fault sends: under Relay's 64 MB vendor-body cap
const served: Expected = { seen: "answer", status: 200, outcome: "ok", errorEvents: 0, vendorFailures: 0 };
const text = (r: Reply = {}): Reply => ({ text: LONG_TEXT, textChunks: 6, ...r });
const retryAfter1 = { "retry-after": "1" };

type Client = "openai" | "anthropic";

interface Expected {
  seen: Seen["kind"];
  /** Client status (http-error), or the logged status of a stream that failed after its headers (200). */
  status: number;
  message?: RegExp;
  outcome: "ok" | "error";
  /** `error` events in the run log = vendor attempts that failed. */
  errorEvents: number;
  /** The faulty provider's cooldown count after the request (a later success clears it). */
  vendorFailures: number;
  retryAfter?: boolean;
  fallback?: boolean;
  /**
   * Also correct when the matrix runs many times at once: a reset that lands
   * before Relay has read the first event (a reset discards unread bytes) fails
   * the attempt with a 502 instead.
   */
  underLoad?: Seen["kind"];
}

interface FaultCase {
  name: string;
  script: Script;
  stream: boolean;
  clients: Client[];
  /** Model asked for; defaults to each client's own model. */
  model?: string;
  expect: Expected;
}

const BOTH: Client[] = ["openai", "anthropic"];
const MODEL: Record<Client, string> = { openai: "gpt-4o-mini", anthropic: "claude-haiku-4-5" };
/** gpt-4o falls back to claude-haiku-4-5 (see the relay config below). */
const CHAINED = "gpt-4o";

const providerError = (status: number, message: RegExp, extra: Partial<Expected> = {}): Expected => ({
  seen: "http-error", status, message, outcome: "error", errorEvents: 1, vendorFailures: 1, ...extra,
});
const midStream = (message: RegExp): Expected => ({ seen: "stream-error", status: 200, message, outcome: "error", errorEvents: 1, vendorFailures: 1 });
const fellBack: Expected = { seen: "answer", status: 200, outcome: "ok", errorEvents: 1, vendorFailures: 1, fallback: true };

const CASES: FaultCase[] = [
  { name: "http500", script: { replies: [{ status: 500 }] }, stream: false, clients: BOTH, expect: providerError(500, /^Provider error: /) },
  { name: "http502", script: { replies: [{ status: 502 }] }, stream: true, clients: BOTH, expect: providerError(502, /^Provider error: /) },
  { name: "http503", script: { replies: [{ status: 503 }] }, stream: false, clients: BOTH, expect: providerError(503, /^Provider error: /) },
  { name: "http529", script: { replies: [{ status: 529, errorType: "overloaded_error" }] }, stream: true, clients: BOTH, expect: providerError(529, /^Provider error: /) },
  { name: "rate429", script: { replies: [{ status: 429 }] }, stream: false, clients: BOTH, expect: providerError(429, /^Provider error: /) },
  {
    // Retry-After within routing.retryAfterCapMs: Relay waits and retries once, then relays the 429 with its Retry-After.
    name: "rate429retry",
    script: { replies: [{ status: 429, headers: retryAfter1 }] },
    stream: false,
    clients: BOTH,
    expect: providerError(429, /^Provider error: /, { errorEvents: 2, vendorFailures: 2, retryAfter: true }),
  },
  {
    name: "rate429thenok",
    script: { replies: [{ status: 429, headers: retryAfter1 }, text()] },
    stream: true,
    clients: BOTH,
    expect: { seen: "answer", status: 200, outcome: "ok", errorEvents: 1, vendorFailures: 0 },
  },
  // A client error relayed from the vendor is not the vendor's fault: no cooldown count.
  { name: "client400", script: { replies: [{ status: 400 }] }, stream: false, clients: BOTH, expect: providerError(400, /^Provider error: /, { vendorFailures: 0 }) },
  { name: "resetbody", script: { replies: [text({ fault: "reset-mid-body" })] }, stream: false, clients: BOTH, expect: providerError(502, /^Provider error: (openai|anthropic): connection (reset|closed) \(answer cut off\)$/) },
  { name: "resetstream", script: { replies: [text({ fault: "reset-mid-body" })] }, stream: true, clients: BOTH, expect: { ...midStream(/ECONNRESET|closed|failed/), underLoad: "http-error" } },
  { name: "stopstream", script: { replies: [text({ fault: "stop-mid-stream" })] }, stream: true, clients: BOTH, expect: midStream(/ended before/) },
  { name: "stopbody", script: { replies: [text({ fault: "stop-mid-stream" })] }, stream: false, clients: BOTH, expect: providerError(502, /malformed/) },
  { name: "neverendstream", script: { replies: [text({ fault: "never-end" })] }, stream: true, clients: BOTH, expect: midStream(/idle for 1000 ms/) },
  { name: "neverendbody", script: { replies: [text({ fault: "never-end" })] }, stream: false, clients: BOTH, expect: providerError(502, /within 1000 ms/) },
  { name: "neveranswer", script: { replies: [text({ fault: "never-answer" })] }, stream: false, clients: BOTH, expect: providerError(502, /did not answer within 1000 ms/) },
  { name: "neveranswerstream", script: { replies: [text({ fault: "never-answer" })] }, stream: true, clients: BOTH, expect: providerError(502, /did not answer within 1000 ms/) },
  { name: "badjson", script: { replies: [text({ fault: "malformed-json" })] }, stream: false, clients: BOTH, expect: providerError(502, /malformed response/) },
  { name: "badsse", script: { replies: [text({ fault: "malformed-sse" })] }, stream: true, clients: BOTH, expect: providerError(502, /not JSON|unreadable/) },
  // `huge` is 20 MB: within Relay's 64 MB vendor-body cap, so it is served whole, streamed or not.
  { name: "hugebody", script: { replies: [{ fault: "huge" }] }, stream: false, clients: BOTH, expect: served },
  { name: "hugestream", script: { replies: [{ fault: "huge" }] }, stream: true, clients: BOTH, expect: served },
  // With a chain configured, the fault is absorbed by the next model.
  { name: "chain500", script: { replies: [{ status: 500 }], only: "openai" }, stream: false, clients: ["openai"], model: CHAINED, expect: fellBack },
  { name: "chainreset", script: { replies: [text({ fault: "reset-mid-body" })], only: "openai" }, stream: false, clients: ["openai"], model: CHAINED, expect: fellBack },
  { name: "chainnoanswer", script: { replies: [text({ fault: "never-answer" })], only: "openai" }, stream: true, clients: ["openai"], model: CHAINED, expect: fellBack },
  { name: "chainbadsse", script: { replies: [text({ fault: "malformed-sse" })], only: "openai" }, stream: true, clients: ["openai"], model: CHAINED, expect: fellBack },
];

const REFUSED: FaultCase = {
  name: "refused",
  script: { replies: [] },
  stream: false,
  clients: BOTH,
  expect: providerError(502, /^Provider error: (openai|anthropic): connection refused$/),
};

let openai: FakeVendor;
let anthropic: FakeVendor;
let relay: TestRelay;
let refusedRelay: TestRelay;
let injected = 0;

const relayConfig = {
  server: { upstreamTimeoutMs: TIMEOUT_MS, streamIdleTimeoutMs: TIMEOUT_MS },
  // Never cool down here: the counts are read, not acted on (guards.test.ts covers the 503).
  cooldown: { failures: 1_000_000, windowSec: 86_400 },
  routing: { strategies: { fallback: { chains: { [CHAINED]: ["claude-haiku-4-5"] } } } },
};

beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeVendor("openai"), startFakeVendor("anthropic")]);
  scriptVendors([openai, anthropic], ["openai", "anthropic"], new Map(CASES.map((c) => [c.name, c.script])));
  const keys = { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant-test" };
  relay = await startRelay({ env: { ...keys, OPENAI_BASE_URL: `${openai.url}/v1`, ANTHROPIC_BASE_URL: anthropic.url }, config: relayConfig });
  const dead = `http://127.0.0.1:${await closedPort()}`;
  refusedRelay = await startRelay({ env: { ...keys, OPENAI_BASE_URL: `${dead}/v1`, ANTHROPIC_BASE_URL: dead }, config: relayConfig });
});

afterAll(async () => {
  await Promise.all([relay?.stop(), refusedRelay?.stop()]);
  await Promise.all([openai?.close(), anthropic?.close()]);
  console.log(`faults injected: ${injected}`);
});

let serial = 0;
async function inject(target: TestRelay, c: FaultCase, client: Client): Promise<{ seen: Seen; tag: string }> {
  const tag = `${c.name}.${client}-${++serial}`;
  injected++;
  const call = { url: target.url, model: c.model ?? MODEL[client], tag, stream: c.stream };
  return { seen: await (client === "openai" ? viaOpenAI(call) : viaAnthropic(call)), tag };
}

async function runOf(target: TestRelay, tag: string) {
  await target.relay.writer.flush();
  const { runs } = await target.relay.store.runs.listRuns({ limit: 1000, offset: 0 });
  return runs.find((r) => r.metadata.case === tag);
}

const failuresOf = (target: TestRelay, provider: string) => target.relay.cooldown.snapshot().find((s) => s.provider === provider)?.recentFailures ?? 0;

/** Nothing left open: vendor responses, Relay's requests, tracked router calls. */
async function expectNoLeak(target: TestRelay): Promise<void> {
  await eventually(
    () => (openai.openConnections() + anthropic.openConnections() + target.listener.inFlight() + target.relay.control.snapshot().inflight === 0 ? true : undefined),
    "every connection to close",
  );
  expect(openai.openConnections()).toBe(0);
  expect(anthropic.openConnections()).toBe(0);
  expect(target.listener.inFlight()).toBe(0);
  expect(target.relay.control.snapshot().inflight).toBe(0);
}

function expectSeen(seen: Seen, e: Expected, label: string): void {
  expect({ label, kind: seen.kind }).toEqual({ label, kind: e.seen });
  if (seen.kind === "http-error") {
    expect(seen.status).toBe(e.status);
    expect(seen.wellFormed).toBe(true);
    if (e.message) expect(seen.message).toMatch(e.message);
    if (e.retryAfter) expect(Number(seen.retryAfter)).toBeGreaterThanOrEqual(1);
  } else if (seen.kind === "stream-error") {
    expect(seen.wellFormed).toBe(true);
    // The fault struck after some of the answer had been relayed.
    expect(seen.textBefore).toBeGreaterThan(0);
    if (e.message) expect(seen.message).toMatch(e.message);
  } else {
    expect(seen.textLength).toBeGreaterThan(0);
    expect(seen.fallbackUsed).toBe(e.fallback === true);
  }
}

async function checkCase(target: TestRelay, c: FaultCase): Promise<void> {
  for (const client of c.clients) {
    const provider = c.script.only ?? client;
    const label = `${c.name} via ${client}`;
    // A success clears a provider's failure count: start each case from zero.
    for (const p of ["openai", "anthropic"]) target.relay.cooldown.recordSuccess(p);
    const { seen, tag } = await inject(target, c, client);
    expectSeen(seen, c.expect, label);
    if (c.name.startsWith("huge")) expect((seen as { textLength: number }).textLength).toBe(HUGE_TEXT_BYTES);

    const run = await runOf(target, tag);
    expect(run, `${label}: run logged`).toBeDefined();
    expect({ label, outcome: run!.outcome, status: run!.status }).toEqual({ label, outcome: c.expect.outcome, status: c.expect.status });
    const errors = run!.events.filter((ev) => ev.type === "error");
    expect({ label, errorEvents: errors.length }).toEqual({ label, errorEvents: c.expect.errorEvents });
    if (c.expect.outcome === "error" && c.expect.message) expect(run!.error).toMatch(c.expect.message);
    if (c.expect.fallback) expect(run!.events.map((ev) => ev.type)).toEqual(["error", "fallback", "attempt"]);

    expect({ label, vendorFailures: failuresOf(target, provider) }).toEqual({ label, vendorFailures: c.expect.vendorFailures });
    if (c.script.only) expect(failuresOf(target, "anthropic")).toBe(0);
    await expectNoLeak(target);
  }
}

describe("each vendor fault, through both SDKs", () => {
  for (const c of CASES) test(`${c.name}${c.stream ? " (stream)" : ""}`, () => checkCase(relay, c), 20_000);

  test("connection refused", async () => {
    for (const stream of [false, true]) await checkCase(refusedRelay, { ...REFUSED, stream });
  });

  test("a request the client got wrong is refused before any vendor call and counts nothing", async () => {
    for (const p of ["openai", "anthropic"]) relay.relay.cooldown.recordSuccess(p);
    const before = openai.requests.length + anthropic.requests.length;
    const res = await fetch(`${relay.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o-mini", messages: "nope" }) });
    injected++;
    expect(res.status).toBe(400);
    expect(openai.requests.length + anthropic.requests.length).toBe(before);
    expect(failuresOf(relay, "openai")).toBe(0);
  });

  test("a vendor body over 64 MB is refused, not buffered", async () => {
    // Declared length over the cap: Relay refuses from the headers, reading none of the body.
    const body = "x".repeat(65 * 1024 * 1024);
    openai.enqueue({ raw: { body } });
    injected++;
    const res = await fetch(`${relay.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error.message).toMatch(/^Provider error: /);
    await expectNoLeak(relay);
  });
});

describe("the whole matrix, 20 times over", () => {
  const ITERATIONS = 20;
  const PARALLEL = 2;

  async function matrixOnce(): Promise<void> {
    const all = [...CASES.flatMap((c) => c.clients.map((client) => ({ target: relay, c, client }))), ...REFUSED.clients.map((client) => ({ target: refusedRelay, c: REFUSED, client }))];
    await Promise.all(
      all.map(async ({ target, c, client }) => {
        const { seen } = await inject(target, c, client);
        const allowed = [c.expect.seen, c.expect.underLoad ?? c.expect.seen];
        // Several matrices at once (with 20 MB answers) load the machine: any call may then outlast the
        // 1 s vendor timeout, which must still end in a well-formed 502 (the serial pass checks each case exactly).
        const timedOut =
          seen.kind !== "answer" && seen.wellFormed && /within 1000 ms|idle for 1000 ms/.test(seen.message) && (seen.kind === "stream-error" || seen.status === 502);
        expect({ case: c.name, kind: allowed.includes(seen.kind) || timedOut ? c.expect.seen : seen }).toEqual({ case: c.name, kind: c.expect.seen });
      }),
    );
  }

  test("serves every fault, logs every run, leaks no connection and no memory", async () => {
    const runsBefore = (await relay.relay.store.runs.totals(0)).requests;
    await matrixOnce(); // warm-up: lazy data, JIT, pools
    openai.requests.length = 0;
    anthropic.requests.length = 0;
    Bun.gc(true);
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 1; i < ITERATIONS; i += PARALLEL) {
      await Promise.all(Array.from({ length: Math.min(PARALLEL, ITERATIONS - i) }, () => matrixOnce()));
      openai.requests.length = 0;
      anthropic.requests.length = 0;
    }
    await expectNoLeak(relay);
    await expectNoLeak(refusedRelay);
    await relay.relay.writer.flush();
    const perMatrix = CASES.reduce((n, c) => n + c.clients.length, 0);
    expect((await relay.relay.store.runs.totals(0)).requests - runsBefore).toBe(perMatrix * ITERATIONS);
    Bun.gc(true);
    const growthMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    // Generous: one leaked 20 MB answer per run of the matrix would be ~400 MB.
    expect(growthMb).toBeLessThan(64);
  }, 120_000);
});
