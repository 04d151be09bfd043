// The stream parsers' event cap (SseParser, NdjsonParser) and the piping hold-back
// (HeldBack): an event grows until its cap, wherever it is cut, and then stops the
// stream; a large event is read in linear time; piped bytes leave only at an
// event's end, and every byte leaves exactly once, in order.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { EventTooLarge, SseParser } from "../../src/core/formats/sse.ts";
import { NdjsonParser } from "../../src/core/formats/ndjson.ts";
import { HeldBack } from "../../src/core/router/held-back.ts";
import type { SinkWriter } from "../../src/runtime/sink-stream.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Feed `text` in pieces of `size` characters; what the parser returned, or the error it threw. */
function feed(parser: SseParser | NdjsonParser, text: string, size: number) {
  const events = [];
  try {
    for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
    events.push(...parser.end());
    return { events, error: undefined };
  } catch (e) {
    return { events, error: e };
  }
}

describe("SseParser's event cap", () => {
  // While its line is unfinished, an event counts with its field name ("data: "): a few characters.
  test("an event within the cap passes; one character over it is EventTooLarge, however the stream is cut", () => {
    const cap = 100;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 130 }), (size) => {
        const fits = `event: e\ndata: ${"x".repeat(cap - 20)}\n\n`;
        const ok = feed(new SseParser(cap), `${fits}data: small\n\n`, size);
        expect(ok.error).toBeUndefined();
        expect(ok.events.map((e) => e.data.length)).toEqual([cap - 20, 5]);
        const over = feed(new SseParser(cap), `data: ok\n\ndata: ${"x".repeat(cap + 1)}\n\n`, size);
        expect(over.error).toBeInstanceOf(EventTooLarge);
        // Events completed by the chunk that passes the cap go with it: the stream ends there.
        expect(["ok"].slice(0, over.events.length)).toEqual(over.events.map((e) => e.data));
      }),
    );
  });

  test("many data lines count together, and the unfinished line counts before its end arrives", () => {
    const lines = feed(new SseParser(50), `${"data: 0123456789\n".repeat(6)}\n`, 1000);
    expect(lines.error).toBeInstanceOf(EventTooLarge);
    const parser = new SseParser(50);
    parser.push("data: ");
    expect(() => parser.push("y".repeat(60))).toThrow(EventTooLarge);
  });

  test("`held` is the unfinished event's size and is 0 at an event's end; clear() forgets it", () => {
    const parser = new SseParser();
    parser.push("event: a\ndata: 12345\n");
    expect(parser.held).toBe(1 + 5);
    parser.push("data: 67");
    expect(parser.held).toBe(1 + 5 + 8);
    expect(parser.push("\n\n")).toEqual([{ event: "a", data: "12345\n67" }]);
    expect(parser.held).toBe(0);
    parser.push("data: zz");
    parser.clear();
    expect(parser.held).toBe(0);
    expect(parser.end()).toEqual([]);
  });

  test("a 32 MB event in 64 KB reads is read in linear time (no rescan of what is buffered)", () => {
    const piece = enc.encode("x".repeat(64 * 1024));
    const parser = new SseParser();
    const t0 = performance.now();
    parser.push("data: ");
    for (let i = 0; i < 512; i++) parser.push(piece);
    const events = parser.push("\n\n");
    const ms = performance.now() - t0;
    expect(events[0]!.data.length).toBe(32 * 1024 * 1024);
    // Rescanning the buffered text per read would copy ~8 GB here: seconds, not milliseconds.
    expect(ms).toBeLessThan(1500);
  });
});

describe("NdjsonParser's line cap", () => {
  test("a line of the cap passes, a longer one is EventTooLarge, however the stream is cut", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), (size) => {
        expect(feed(new NdjsonParser(40), `{"a":1}\n${"x".repeat(40)}\n`, size).error).toBeUndefined();
        expect(feed(new NdjsonParser(40), `{"a":1}\n${"x".repeat(41)}\n{"b":2}\n`, size).error).toBeInstanceOf(EventTooLarge);
      }),
    );
  });

  test("`held` counts the unfinished line", () => {
    const parser = new NdjsonParser();
    expect(parser.push('{"a":1}\n{"b"')).toEqual([{ data: '{"a":1}' }]);
    expect(parser.held).toBe(4);
    expect(parser.push(":2}\n")).toEqual([{ data: '{"b":2}' }]);
    expect(parser.held).toBe(0);
  });
});

/** A sink that collects what is written. */
function sink(): SinkWriter & { text(): string } {
  const parts: Uint8Array[] = [];
  return {
    write(chunk) {
      parts.push(typeof chunk === "string" ? enc.encode(chunk) : chunk);
      return chunk.length;
    },
    close() {},
    text: () => parts.map((p) => dec.decode(p)).join(""),
  };
}

describe("HeldBack", () => {
  // Pipe each chunk as stream-pump.ts does: push, parse, then pipe with the parser's verdict.
  async function pipeAll(chunks: string[], ndjson = false): Promise<{ sent: string[]; held: number }> {
    const parser = ndjson ? new NdjsonParser() : new SseParser();
    const back = new HeldBack(ndjson);
    const out = sink();
    const sent: string[] = [];
    for (const c of chunks) {
      back.push(enc.encode(c));
      parser.push(c);
      await back.pipe(out, parser.held !== 0);
      sent.push(out.text());
    }
    return { sent, held: back.bytes };
  }

  test("bytes leave only at an event's end, every byte once and in order", async () => {
    const events = ["data: one\n\n", "event: e\ndata: two\ndata: 2\n\n", "data: three\r\n\r\n", "data: four\n\n"];
    const whole = events.join("");
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: whole.length - 1 }), { maxLength: 8 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), whole.length];
        const chunks = points.slice(1).map((p, i) => whole.slice(points[i], p));
        const { sent, held } = await pipeAll(chunks);
        expect(sent.at(-1)).toBe(whole);
        expect(held).toBe(0);
        // After each chunk, what went out is a run of whole events (a CR ends a line whatever follows it).
        const ends = events.map((_, i) => events.slice(0, i + 1).join(""));
        for (const s of sent) expect(s === "" || ends.includes(s) || ends.includes(`${s}\n`)).toBe(true);
      }),
    );
  });

  test("complete events before an unfinished one in the same chunk go out at once", async () => {
    const { sent, held } = await pipeAll(["data: a\n\ndata: b\n\ndata: partial", " more"]);
    expect(sent).toEqual(["data: a\n\ndata: b\n\n", "data: a\n\ndata: b\n\n"]);
    expect(held).toBe("data: partial more".length);
  });

  test("NDJSON: each line is an event", async () => {
    const { sent } = await pipeAll(['{"a":1}\n{"b"', ':2}\n{"c":3}\n'], true);
    expect(sent).toEqual(['{"a":1}\n', '{"a":1}\n{"b":2}\n{"c":3}\n']);
  });
});
