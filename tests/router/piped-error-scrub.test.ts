// A piped stream relays the vendor's own bytes: a vendor error event whose text
// echoes a secret is swapped, while still held (HeldBack.replaceEvent), for the
// same error re-encoded with the secret scrubbed, wherever the reads cut it; the
// events around it go out as the vendor sent them. Through HTTP:
// tests/security/secrets-stream.test.ts.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { defaults } from "../../src/config/load.ts";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { HeldBack } from "../../src/core/router/held-back.ts";
import type { StreamOutcome } from "../../src/core/router/stream-options.ts";
import { primeStream } from "../../src/core/router/stream-relay.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `text` cut at the given character offsets (ASCII), each piece pushed as one chunk; what is held after the swap. */
function swapped(lines: boolean, text: string, cuts: number[], raw: { event?: string; data: string }): string {
  const back = new HeldBack(lines);
  const offsets = [0, ...cuts.sort((a, b) => a - b), text.length];
  for (let i = 1; i < offsets.length; i++) back.push(enc.encode(text.slice(offsets[i - 1], offsets[i])));
  back.replaceEvent(raw, "<swapped>");
  expect(back.bytes).toBe(back.chunks.reduce((n, c) => n + c.byteLength, 0));
  return back.chunks.map((c) => dec.decode(c)).join("");
}

describe("HeldBack.replaceEvent", () => {
  const cases: Array<[name: string, lines: boolean, events: string[], raw: { event?: string; data: string }]> = [
    ["SSE", false, ["event: a\ndata: one\n\n", 'event: error\ndata: {"k":"s3cret"}\n\n', "event: b\ndata: two\n\n", "event: c\ndata: unfini"], { event: "error", data: '{"k":"s3cret"}' }],
    ["SSE with CRLF and a multi-line event", false, ["data: one\r\n\r\n", "data: x\r\ndata: s3cret\r\n\r\n", "data: two\r\n\r\n"], { data: "x\ns3cret" }],
    ["NDJSON", true, ['{"a":1}\n', '{"error":"s3cret"}\n', '{"b":2}\n', '{"c"'], { data: '{"error":"s3cret"}' }],
  ];
  for (const [name, lines, events, raw] of cases) {
    test(`${name}: only the event's bytes are swapped, however the chunks cut it`, () => {
      const text = events.join("");
      const expected = events.map((e) => (e.includes("s3cret") ? "<swapped>" : e)).join("");
      fc.assert(
        fc.property(fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 6 }), (cuts) => {
          expect(swapped(lines, text, cuts, raw)).toBe(expected);
        }),
      );
    });
  }

  test("the stream's last event, without its blank line, is found too", () => {
    expect(swapped(false, "data: one\n\nevent: error\ndata: s3cret", [14], { event: "error", data: "s3cret" })).toBe("data: one\n\n<swapped>");
  });
});

describe("a piped stream's vendor error that echoes a secret", () => {
  const SECRET = "vendor-echoed-secret-0042";
  const frame = (data: { type: string; [field: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const head =
    frame({ type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 0 } } }) +
    frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  const delta = frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } });
  const failure = `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: `overloaded for ${SECRET}` } })}`;

  /** Relays `chunks` (one per read) piped, Anthropic to Anthropic, with a scrubber that knows SECRET. */
  async function relay(chunks: string[]): Promise<{ text: string; end: StreamOutcome | undefined }> {
    let next = 0;
    let end: StreamOutcome | undefined;
    const body = new ReadableStream<Uint8Array>(
      { pull: (c) => (next < chunks.length ? c.enqueue(enc.encode(chunks[next++]!)) : c.close()) },
      { highWaterMark: 0 },
    );
    const primed = await primeStream({
      body,
      vendor: anthropicCodec,
      client: anthropicCodec,
      passthrough: true,
      clientModel: "m",
      idleTimeoutMs: 1000,
      limits: defaults().server,
      scrubber: { scrub: (t) => t.replaceAll(SECRET, "[redacted]") },
      signal: new AbortController().signal,
      abort: () => {},
      onWait: () => {},
      onStart: () => {},
      onEnd: async (o) => void (end = o),
    });
    if (!primed.ok) throw new Error(`priming failed: ${primed.reason}`);
    return { text: await new Response(primed.body).text(), end };
  }

  const scrubbedError = `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "overloaded for [redacted]" } })}\n\n`;
  const cases: Array<[name: string, chunks: string[]]> = [
    ["split across reads after the stream started, as its last bytes without a blank line", [head, delta + failure.slice(0, 30), failure.slice(30)]],
    ["in the read that also completes the event before it", [head, delta.slice(0, 20), delta.slice(20) + failure + "\n\n"]],
  ];
  for (const [name, chunks] of cases) {
    test(name, async () => {
      const { text, end } = await relay(chunks);
      expect(text).toBe(head + delta + scrubbedError);
      expect(end).toMatchObject({ outcome: "error", error: "overloaded for [redacted]" });
    });
  }

  test("an error without a secret goes out as the vendor sent it", async () => {
    const plain = `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`;
    expect((await relay([head, delta + plain])).text).toBe(head + delta + plain);
  });
});
