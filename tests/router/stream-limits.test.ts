// primeStream's bounds, in process: the event cap, the priming cap, the
// process-wide cap on held bytes, the duration limit, and a caller's guard. Each
// ends the stream cleanly: an error frame in the client's format after whole
// events only, onEnd once with outcome error (limited, the reason naming the
// cap), the vendor cancelled, and the held-bytes count given back. Before the
// client's first byte, a bound is a failed attempt instead.
// The same through HTTP, against a real Relay: tests/security/attacks/streams.ts.
import { describe, expect, test } from "bun:test";
import { defaults } from "../../src/config/load.ts";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { heldNow } from "../../src/core/limits/held-bytes.ts";
import type { StreamLimits } from "../../src/core/router/bounded-parser.ts";
import { StreamLimit, type StreamOutcome, type StreamRelayOptions } from "../../src/core/router/stream-options.ts";
import { primeStream } from "../../src/core/router/stream-relay.ts";
import { anthropic } from "../fakes/render/anthropic.ts";
import type { Dialect } from "../fakes/render/dialect.ts";
import { openai } from "../fakes/render/openai.ts";
import { parseSse } from "../fakes/wire.ts";

const enc = new TextEncoder();
const KB = 1024;

function frames(dialect: Dialect, text = "Hello from the fake vendor, in several pieces."): string[] {
  const call = { model: "m", stream: true, includeUsage: true, sse: true };
  return dialect.frame(dialect.events({ text, textChunks: 5 }, call), call);
}

/** A vendor body handing out one chunk per read (after `delayMs`); then it closes, or stays silent with `hang`. */
function vendor(chunks: Array<string | Uint8Array>, opts: { delayMs?: number; hang?: boolean } = {}) {
  let next = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (next > 0 && opts.delayMs) await Bun.sleep(opts.delayMs);
        if (next < chunks.length) {
          const c = chunks[next++]!;
          controller.enqueue(typeof c === "string" ? enc.encode(c) : c);
        } else if (opts.hang) await new Promise(() => {});
        else controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, cancelled: () => cancelled };
}

/** An OpenAI chunk whose content is `n` characters: one event, sent in 64 KB reads, never ended when `open`. */
function hugeEvent(n: number, open = false): Uint8Array[] {
  const whole = enc.encode(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${"x".repeat(n)}"}}]}${open ? "" : "\n\n"}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < whole.length; i += 64 * KB) out.push(whole.subarray(i, i + 64 * KB));
  return out;
}

function relay(v: ReturnType<typeof vendor>, limits: Partial<StreamLimits> = {}, over: Partial<StreamRelayOptions> = {}) {
  const ends: StreamOutcome[] = [];
  const aborts: unknown[] = [];
  const primed = primeStream({
    body: v.body,
    vendor: openaiCodec,
    client: openaiCodec,
    passthrough: true,
    clientModel: "client-model",
    includeUsage: true,
    idleTimeoutMs: 5000,
    limits: { ...defaults().server, ...limits },
    signal: new AbortController().signal,
    abort: (reason) => void aborts.push(reason),
    onWait: () => {},
    onStart: () => {},
    onEnd: async (o) => void ends.push(o),
    ...over,
  });
  return { primed, ends, aborts };
}

async function textOf(primed: ReturnType<typeof primeStream>): Promise<string> {
  const p = await primed;
  if (!p.ok) throw new Error(`priming failed: ${p.reason}`);
  return new Response(p.body).text();
}

/** The client text is whole events, then one error frame (OpenAI style) saying `reason`. */
function expectEndsWithError(text: string, reason: string): void {
  const events = parseSse(text);
  expect(events.at(-1)?.data).toBe("[DONE]");
  expect(JSON.parse(events.at(-2)!.data).error.message).toContain(reason);
  for (const e of events.slice(0, -2)) expect(() => JSON.parse(e.data)).not.toThrow();
}

describe("a cap passed after the client's first byte", () => {
  test("a piped event over streamMaxEventBytes: no byte of it goes out, an error frame does, the vendor is cancelled", async () => {
    const head = frames(openai).slice(0, 2);
    const v = vendor([...head, ...hugeEvent(600 * KB)]);
    const before = heldNow();
    const { primed, ends, aborts } = relay(v, { streamMaxEventBytes: 256 * KB });
    const text = await textOf(primed);
    expect(text.startsWith(head.join(""))).toBe(true);
    expect(text.length).toBeLessThan(4 * KB);
    expectEndsWithError(text, "server.streamMaxEventBytes");
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", limited: true, error: expect.stringContaining("server.streamMaxEventBytes") })]);
    expect(aborts[0]).toBeInstanceOf(StreamLimit);
    expect(v.cancelled()).toBe(true);
    expect(heldNow()).toBe(before);
  });

  test("translated, the error frame is in the client's format", async () => {
    const v = vendor([...frames(openai).slice(0, 2), ...hugeEvent(600 * KB)]);
    const { primed, ends } = relay(v, { streamMaxEventBytes: 256 * KB }, { client: anthropicCodec, passthrough: false });
    const events = parseSse(await textOf(primed));
    expect(events.at(-1)).toEqual(expect.objectContaining({ event: "error" }));
    expect(JSON.parse(events.at(-1)!.data).error.message).toContain("server.streamMaxEventBytes");
    expect(ends[0]).toEqual(expect.objectContaining({ outcome: "error", limited: true }));
  });

  test("streams holding more than streamMaxHeldBytes together: the one that would pass it ends", async () => {
    const before = heldNow();
    const limits = { streamMaxHeldBytes: 1024 * KB, streamMaxEventBytes: 4096 * KB };
    // The first holds an unfinished 700 KB event (and stays open); the second's would take the total past 1 MB.
    const first = vendor([...frames(openai).slice(0, 2), ...hugeEvent(350 * KB, true)], { hang: true });
    const a = relay(first, limits);
    const aBody = (await a.primed) as { ok: true; body: ReadableStream<Uint8Array> };
    const aReader = aBody.body.getReader();
    await aReader.read();
    while (heldNow() - before < 600 * KB) await Bun.sleep(5);
    const b = relay(vendor([...frames(openai).slice(0, 2), ...hugeEvent(600 * KB)]), limits);
    expectEndsWithError(await textOf(b.primed), "server.streamMaxHeldBytes");
    expect(b.ends[0]).toEqual(expect.objectContaining({ outcome: "error", limited: true }));
    await aReader.cancel();
    expect(heldNow()).toBe(before);
  });

  test("a stream running past streamMaxDurationMs is ended however busy it is", async () => {
    const chunks = frames(openai);
    const drip = [...chunks.slice(0, 2), ...Array.from({ length: 200 }, () => chunks[2]!)];
    const v = vendor(drip, { delayMs: 20 });
    const t0 = performance.now();
    const { primed, ends } = relay(v, { streamMaxDurationMs: 300 });
    const text = await textOf(primed);
    expect(performance.now() - t0).toBeLessThan(2000);
    expectEndsWithError(text, "server.streamMaxDurationMs");
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", limited: true })]);
    expect(v.cancelled()).toBe(true);
  });

  test("a guard's reason ends the stream like a cap, before the event it vetoed is relayed", async () => {
    const chunks = frames(openai);
    const seen: string[] = [];
    let deltas = 0;
    const guard = (ev: { type: string }) => {
      seen.push(ev.type);
      return ev.type === "text_delta" && ++deltas === 3 ? "budget exhausted (guard)" : undefined;
    };
    const v = vendor(chunks);
    const { primed, ends } = relay(v, {}, { guard });
    const text = await textOf(primed);
    expectEndsWithError(text, "budget exhausted (guard)");
    expect(text.startsWith(chunks.slice(0, 3).join(""))).toBe(true);
    expect(text).not.toContain(chunks[3]!); // the vetoed delta (the third) and what follows never go out
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", limited: true, error: "budget exhausted (guard)" })]);
    expect(seen.slice(0, 2)).toEqual(["start", "block_start"]);
  });
});

describe("a bound passed before the client's first byte is a failed attempt", () => {
  test("more than streamMaxPrimingBytes before the first content", async () => {
    const pings = Array.from({ length: 40 }, () => `: ${"p".repeat(8 * KB)}\n\n`);
    const v = vendor([...pings, ...frames(openai)]);
    const before = heldNow();
    const p = await relay(v, { streamMaxPrimingBytes: 128 * KB }).primed;
    expect(p).toEqual({ ok: false, error: undefined, reason: expect.stringContaining("server.streamMaxPrimingBytes"), limited: true });
    expect(v.cancelled()).toBe(true);
    expect(heldNow()).toBe(before);
  });

  test("a guard vetoing the first event", async () => {
    const p = await relay(vendor(frames(openai)), {}, { guard: () => "refused by guard" }).primed;
    expect(p).toEqual({ ok: false, error: undefined, reason: "refused by guard", limited: true });
  });
});

test("a stream within every bound is piped byte for byte, and the count is given back", async () => {
  const before = heldNow();
  const chunks = frames(openai);
  // Events cut mid-way: each leaves once complete.
  const joined = chunks.join("");
  const cuts = [5, 40, 41, 120, joined.length - 3];
  const pieces = [0, ...cuts].map((from, i) => joined.slice(from, cuts[i] ?? joined.length));
  const { primed, ends } = relay(vendor(pieces, { delayMs: 1 }));
  expect(await textOf(primed)).toBe(joined);
  expect(ends).toEqual([expect.objectContaining({ outcome: "ok", limited: false })]);
  expect(heldNow()).toBe(before);
});
