// primeStream's guarantees, in process: bytes piped unchanged (or translated), the outcome
// tapped from events split anywhere, the idle timeout (one timer per stream, re-armed by each
// read, never counting while the client is the slow side), back-pressure, client cancel,
// truncated streams, onEnd exactly once and before the client sees the end.
// The same guarantees through HTTP: tests/reliability/*.test.ts, tests/conformance/*.test.ts.
import { describe, expect, test } from "bun:test";
import { defaults } from "../../src/config/load.ts";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import { IdleTimeout, type StreamOutcome, type StreamRelayOptions } from "../../src/core/router/stream-options.ts";
import { primeStream, WHOLE_WAIT_MS } from "../../src/core/router/stream-relay.ts";
import { anthropic } from "../fakes/render/anthropic.ts";
import type { Dialect } from "../fakes/render/dialect.ts";
import { openai } from "../fakes/render/openai.ts";
import { parseSse } from "../fakes/wire.ts";

const TEXT = "Hello from the fake vendor, in several pieces.";
const IDLE_MS = 200;
const enc = new TextEncoder();

/** The framed events a fake vendor streams for TEXT (include_usage on). */
function frames(dialect: Dialect): string[] {
  const call = { model: "m", stream: true, includeUsage: true, sse: true };
  return dialect.frame(dialect.events({ text: TEXT, textChunks: 5 }, call), call);
}

interface Vendor {
  body: ReadableStream<Uint8Array>;
  /** Reads the relay made. */
  pulls(): number;
  cancelled(): boolean;
  /** What aborting the vendor's fetch does to its body: a pending read rejects with the reason. */
  abort(reason: unknown): void;
}

/**
 * A vendor body that hands out one chunk per read, waiting `delayMs` before each but the first;
 * after the last it closes, or with `hang` stays silent until cancelled.
 */
function vendor(chunks: Array<string | Uint8Array>, opts: { delayMs?: number; hang?: boolean } = {}): Vendor {
  let next = 0;
  let cancelled = false;
  let fail: (reason: unknown) => void = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        fail = (reason) => controller.error(reason);
      },
      async pull(controller) {
        if (next > 0 && opts.delayMs) await Bun.sleep(opts.delayMs);
        if (next < chunks.length) {
          const c = chunks[next++]!;
          controller.enqueue(typeof c === "string" ? enc.encode(c) : c);
        } else if (opts.hang) {
          next++;
          await new Promise(() => {});
        } else controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulls: () => next, cancelled: () => cancelled, abort: (reason) => fail(reason) };
}

function relay(v: Vendor, over: Partial<StreamRelayOptions> = {}) {
  const ends: StreamOutcome[] = [];
  const aborts: unknown[] = [];
  const primed = primeStream({
    body: v.body,
    vendor: openaiCodec,
    client: openaiCodec,
    passthrough: true,
    clientModel: "client-model",
    includeUsage: true,
    idleTimeoutMs: IDLE_MS,
    limits: defaults().server,
    signal: new AbortController().signal,
    abort: (reason) => {
      aborts.push(reason);
      v.abort(reason);
    },
    onWait: () => {},
    onStart: () => {},
    onEnd: async (o) => void ends.push(o),
    ...over,
  });
  return { primed, ends, aborts };
}

async function streamOf(primed: ReturnType<typeof primeStream>): Promise<ReadableStream<Uint8Array>> {
  const p = await primed;
  if (!p.ok) throw new Error(`priming failed: ${p.reason}`);
  return p.body instanceof ReadableStream ? p.body : new Response(p.body).body!;
}

/** The finish event a full decode of the stream gives: what the tap must recover. */
function fullOutcome(text: string) {
  const parser = new SseParser();
  const decoder = openaiCodec.streamDecoder();
  const events = [...parser.push(text), ...parser.end()].flatMap((raw) => decoder.push(raw));
  return [...events, ...decoder.end()].find((e) => e.type === "finish");
}

/** Cuts a string's bytes at the given offsets. */
function cutBytes(s: string, offsets: number[]): Uint8Array[] {
  const bytes = enc.encode(s);
  return [0, ...offsets].map((from, i) => bytes.slice(from, offsets[i] ?? bytes.length));
}

describe("passthrough", () => {
  test("pipes the vendor's bytes unchanged and taps usage, stop reason and model", async () => {
    const chunks = frames(openai);
    const { primed, ends } = relay(vendor(chunks));
    expect(await new Response(await streamOf(primed)).text()).toBe(chunks.join(""));
    const finish = fullOutcome(chunks.join(""));
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok", usage: (finish as { usage: unknown }).usage, stopReason: "end_turn", model: "m" })]);
    expect(ends[0]!.usage.inputTokens).toBeGreaterThan(0);
  });

  test("an outcome event split across reads (CRLF endings, CR and LF in different reads) is still tapped", async () => {
    const crlf = frames(openai).map((f) => f.replaceAll("\n", "\r\n"));
    const usageChunk = crlf.at(-2)!; // the include_usage chunk, before [DONE]
    expect(usageChunk).toContain('"usage":{');
    const cr = enc.encode(usageChunk).indexOf(13);
    const pieces = cutBytes(usageChunk, [7, cr + 1, cr + 40]);
    const chunks = [...crlf.slice(0, -2), ...pieces, crlf.at(-1)!];
    const { primed, ends } = relay(vendor(chunks));
    expect(await new Response(await streamOf(primed)).text()).toBe(crlf.join(""));
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok", usage: (fullOutcome(crlf.join("")) as { usage: unknown }).usage })]);
  });

  // A fast vendor's whole answer arrives in the read that primes the stream (one 5.4 KB read on
  // loopback): the tap narrows to outcome events mid-read, and must still find them all.
  test("a whole stream in one read: bytes unchanged, usage and stop reason tapped", async () => {
    const chunks = frames(openai);
    const { primed, ends } = relay(vendor([chunks.join("")]));
    expect(await new Response(await streamOf(primed)).text()).toBe(chunks.join(""));
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok", usage: (fullOutcome(chunks.join("")) as { usage: unknown }).usage, stopReason: "end_turn", model: "m" })]);
  });

  test("a whole stream in one read with an error event after the content: the run is an error", async () => {
    const chunks = frames(openai);
    const error = 'data: {"error":{"message":"overloaded midway","type":"server_error"}}\n\n';
    const { primed, ends } = relay(vendor([[...chunks.slice(0, 3), error].join("")]));
    await new Response(await streamOf(primed)).text();
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", error: "overloaded midway" })]);
  });

  test("a stream cut before its final event gets an error frame, and the run is an error", async () => {
    const chunks = frames(openai).slice(0, 4);
    const { primed, ends } = relay(vendor(chunks));
    const text = await new Response(await streamOf(primed)).text();
    expect(text.startsWith(chunks.join(""))).toBe(true);
    const last = parseSse(text).at(-2)!; // before [DONE]
    expect(JSON.parse(last.data).error.message).toContain("ended before");
    expect(ends).toEqual([expect.objectContaining({ outcome: "error" })]);
  });
});

// A short answer usually arrives whole while priming: it goes out as one body (one send) once its
// run is logged, and a vendor slow to end its stream after the final event is streamed instead.
describe("an answer that arrives whole", () => {
  test("is one body, sent after the run is logged (onStart before onEnd)", async () => {
    const chunks = frames(openai);
    const calls: string[] = [];
    const { primed, ends } = relay(vendor([chunks.join("")]), {
      onStart: () => void calls.push("start"),
      onEnd: async (o) => {
        await Bun.sleep(20);
        calls.push(`end ${o.outcome}`);
      },
    });
    const p = await primed;
    expect(calls).toEqual(["start", "end ok"]);
    // Read in one chunk, it is that chunk, not a copy.
    expect(p.ok && p.body instanceof Uint8Array).toBe(true);
    expect(ends).toEqual([]); // the over-ridden onEnd logged it
    expect(await new Response(await streamOf(Promise.resolve(p))).text()).toBe(chunks.join(""));
  });

  test("read in several chunks, it is one body holding them all, in order", async () => {
    const chunks = frames(openai);
    // The first read already holds the finish reason: the relay reads on to the end.
    const { primed } = relay(vendor([chunks.slice(0, -1).join(""), chunks.at(-1)!]));
    const p = await primed;
    expect(p.ok && p.body instanceof Blob).toBe(true);
    expect(await new Response(await streamOf(Promise.resolve(p))).text()).toBe(chunks.join(""));
  });

  test("translated, it is the client's whole stream as one text, closing frame included", async () => {
    const { primed } = relay(vendor([frames(anthropic).join("")]), { vendor: anthropicCodec, passthrough: false });
    const p = await primed;
    // Text, not a Blob of the translated pieces: a Blob around them cost ~5 µs per answer (bench/ab.ts case c).
    expect(p.ok && typeof p.body).toBe("string");
    const events = parseSse(await new Response(await streamOf(Promise.resolve(p))).text());
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(events.map((e) => e.data).join("")).toContain('"finish_reason":"stop"');
  });

  test("a vendor that keeps its connection open after the final event is streamed after WHOLE_WAIT_MS, not held", async () => {
    const chunks = frames(openai);
    const { primed, ends } = relay(vendor([chunks.join("")], { hang: true }));
    const start = performance.now();
    const reader = (await streamOf(primed)).getReader();
    const first = await reader.read();
    expect(performance.now() - start).toBeLessThan(IDLE_MS / 2);
    expect(new TextDecoder().decode(first.value)).toBe(chunks.join(""));
    expect(ends).toEqual([]); // the run is still open: the end has not come
    while (!(await reader.read()).done);
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", error: `vendor stream idle for ${IDLE_MS} ms` })]);
    expect(WHOLE_WAIT_MS).toBeLessThan(IDLE_MS / 2);
  });

  test("a read that fails while waiting for the end reaches the client as an error frame after the answer", async () => {
    const chunks = frames(openai);
    let reads = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (reads++ === 0) controller.enqueue(enc.encode(chunks.join("")));
          else controller.error(new Error("connection reset"));
        },
      },
      { highWaterMark: 0 },
    );
    const { primed, ends } = relay({ body, pulls: () => reads, cancelled: () => false, abort: () => {} });
    const text = await new Response(await streamOf(primed)).text();
    expect(text.startsWith(chunks.join(""))).toBe(true);
    expect(JSON.parse(parseSse(text.slice(chunks.join("").length)).at(0)!.data).error.message).toBe("vendor stream failed: connection reset");
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", error: "vendor stream failed: connection reset" })]);
  });
});

describe("translation", () => {
  test("an Anthropic vendor stream reaches an OpenAI client as chat.completion chunks with usage", async () => {
    const { primed, ends } = relay(vendor(frames(anthropic)), { vendor: anthropicCodec, passthrough: false });
    const events = parseSse(await new Response(await streamOf(primed)).text());
    expect(events.at(-1)!.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe(TEXT);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "client-model")).toBe(true);
    expect(chunks.at(-1).usage.prompt_tokens).toBeGreaterThan(0);
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok", stopReason: "end_turn" })]);
  });
});

describe("priming", () => {
  test("a vendor whose first event is an error fails before the client sees a byte", async () => {
    const v = vendor(['data: {"error":{"message":"overloaded","type":"server_error"}}\n\n']);
    const { primed, ends, aborts } = relay(v);
    const p = await primed;
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error?.message).toBe("overloaded");
    expect(aborts.length).toBe(1);
    expect(ends).toEqual([]);
  });

  test("a stream that ends empty fails the attempt", async () => {
    const p = await relay(vendor([])).primed;
    expect(p).toMatchObject({ ok: false, reason: "vendor stream ended before a finish_reason" });
  });
});

describe("idle timeout", () => {
  test("a vendor silent for the timeout mid-stream ends the stream with an error frame naming it", async () => {
    const v = vendor(frames(openai).slice(0, 3), { hang: true });
    const { primed, ends, aborts } = relay(v);
    const text = await new Response(await streamOf(primed)).text();
    expect(text).toContain(`vendor stream idle for ${IDLE_MS} ms`);
    expect(ends).toEqual([expect.objectContaining({ outcome: "error", error: `vendor stream idle for ${IDLE_MS} ms` })]);
    expect(aborts[0]).toBeInstanceOf(IdleTimeout);
  });

  test("a vendor that keeps sending within the timeout is never cut off, however long the stream (the timer is re-armed per read)", async () => {
    // 8 reads 0.4 timeouts apart: 3 timeouts in all, with a read pending nearly all the time.
    const chunks = frames(openai);
    const v = vendor([...chunks.slice(0, 8), chunks.slice(8).join("")], { delayMs: IDLE_MS * 0.4 });
    const { primed, ends } = relay(v);
    expect(await new Response(await streamOf(primed)).text()).toBe(chunks.join(""));
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok" })]);
  });

  test("a client slower than the timeout is not an idle vendor", async () => {
    const big = `: ${"x".repeat(128 * 1024)}\n\n`; // SSE comments: padding the vendor may send
    const chunks = frames(openai);
    const { primed, ends } = relay(vendor([chunks[0]!, chunks[1]!, big, big, ...chunks.slice(2)]));
    const reader = (await streamOf(primed)).getReader();
    await reader.read();
    await Bun.sleep(IDLE_MS * 2);
    while (!(await reader.read()).done);
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok" })]);
  });
});

describe("back-pressure, cancel and the end", () => {
  test("the vendor is read only as fast as the client reads", async () => {
    const big = `: ${"x".repeat(64 * 1024)}\n\n`;
    const chunks = frames(openai);
    const v = vendor([chunks[0]!, chunks[1]!, ...Array.from({ length: 40 }, () => big), ...chunks.slice(2)]);
    const { primed, ends } = relay(v);
    const reader = (await streamOf(primed)).getReader();
    await reader.read();
    await Bun.sleep(100);
    // At most a buffer's worth (64 KiB) ahead of the client, not the 2.5 MB the vendor has ready.
    expect(v.pulls()).toBeLessThan(6);
    let bytes = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
    expect(bytes).toBeGreaterThan(40 * 64 * 1024);
    expect(ends).toEqual([expect.objectContaining({ outcome: "ok" })]);
  });

  test("a client that cancels aborts the vendor and the run is recorded once, as cancelled", async () => {
    const v = vendor(frames(openai), { delayMs: 20 });
    const { primed, ends, aborts } = relay(v);
    const reader = (await streamOf(primed)).getReader();
    await reader.read();
    await reader.cancel(new Error("client left"));
    await Bun.sleep(100);
    expect(ends).toEqual([expect.objectContaining({ outcome: "cancelled", error: "client disconnected" })]);
    expect(aborts.length).toBe(1);
    expect(v.cancelled()).toBe(true);
  });

  test("the run record is committed before the client sees the stream end", async () => {
    for (const consume of ["reader", "whole body"] as const) {
      let committed = false;
      const { primed } = relay(vendor(frames(openai)), {
        onEnd: async () => {
          await Bun.sleep(50);
          committed = true;
        },
      });
      const stream = await streamOf(primed);
      if (consume === "whole body") await new Response(stream).text();
      else {
        const reader = stream.getReader();
        while (!(await reader.read()).done);
      }
      expect({ consume, committed }).toEqual({ consume, committed: true });
    }
  });
});
