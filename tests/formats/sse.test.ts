import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { SseParser, sseFrame } from "../../src/core/formats/sse.ts";
import type { RawStreamEvent } from "../../src/core/formats/types.ts";

// Characters that stress the parser: field separators, leading spaces,
// multi-byte UTF-8 (2, 3 and 4 bytes) and arbitrary code points.
const tricky = fc.constantFrom("a", "Z", " ", ":", "é", "€", "😀", "\u2028", "\t", "data", "{}");
const anyChar = fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => c !== "\r" && c !== "\n");
const value = fc.string({ unit: fc.oneof(tricky, anyChar), maxLength: 12 });
const ending = fc.constantFrom("\n", "\r", "\r\n");

interface GenEvent {
  event?: string;
  dataLines: string[];
  comment?: string;
  idLine: boolean;
  spaceAfterColon: boolean;
}

const genEvent: fc.Arbitrary<GenEvent> = fc.record(
  {
    event: value.filter((s) => s !== ""),
    dataLines: fc.array(value, { minLength: 1, maxLength: 4 }),
    comment: value,
    idLine: fc.boolean(),
    spaceAfterColon: fc.boolean(),
  },
  { requiredKeys: ["dataLines", "idLine", "spaceAfterColon"] },
);

/** Field line; the space after ":" is optional unless the value itself starts with one. */
function field(name: string, v: string, space: boolean): string {
  return `${name}:${space || v.startsWith(" ") ? " " : ""}${v}`;
}

function lines(e: GenEvent): string[] {
  const out: string[] = [];
  if (e.comment !== undefined) out.push(`:${e.comment}`);
  if (e.event !== undefined) out.push(field("event", e.event, e.spaceAfterColon));
  for (const d of e.dataLines) out.push(field("data", d, e.spaceAfterColon));
  if (e.idLine) out.push("id: 7", "retry: 1000");
  out.push(""); // the blank line that dispatches the event
  return out;
}

/**
 * Joins lines with the given endings. A CR-terminated line followed by an empty
 * LF-terminated line would read as one CRLF, so that pair gets a CR instead.
 */
function serialise(allLines: string[], endings: string[]): string {
  let text = "";
  let prev = "";
  allLines.forEach((line, i) => {
    let end = endings[i % endings.length];
    if (line === "" && prev === "\r" && end === "\n") end = "\r";
    text += line + end;
    prev = end;
  });
  return text;
}

const expected = (events: GenEvent[]): RawStreamEvent[] =>
  events.map((e) => ({ event: e.event, data: e.dataLines.join("\n") }));

function parseChunks(chunks: Array<Uint8Array | string>): RawStreamEvent[] {
  const parser = new SseParser();
  const out = chunks.flatMap((c) => parser.push(c));
  return [...out, ...parser.end()];
}

/** Cuts at the given offsets (sorted; repeats give empty chunks, as a socket read can). */
function cut<T extends Uint8Array | string>(whole: T, offsets: number[]): T[] {
  const points = offsets.map((o) => o % (whole.length + 1)).sort((a, b) => a - b);
  const parts: T[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(whole.slice(from, p) as T);
    from = p;
  }
  parts.push(whole.slice(from) as T);
  return parts;
}

const streams = fc.record({
  events: fc.array(genEvent, { maxLength: 6 }),
  endings: fc.array(ending, { minLength: 1, maxLength: 8 }),
  offsets: fc.array(fc.nat({ max: 300 }), { maxLength: 12 }),
});

describe("SseParser", () => {
  test("byte chunks split anywhere (inside UTF-8 sequences, between CR and LF) parse like the whole stream", () => {
    fc.assert(
      fc.property(streams, ({ events, endings, offsets }) => {
        const bytes = new TextEncoder().encode(serialise(events.flatMap(lines), endings));
        const whole = parseChunks([bytes]);
        expect(whole).toEqual(expected(events));
        expect(parseChunks(cut(bytes, offsets))).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  test("string chunks split anywhere parse like the whole stream", () => {
    fc.assert(
      fc.property(streams, ({ events, endings, offsets }) => {
        const text = serialise(events.flatMap(lines), endings);
        expect(parseChunks(cut(text, offsets))).toEqual(expected(events));
      }),
      { numRuns: 400 },
    );
  });

  test("an empty read between CR and LF does not turn the LF into a blank line", () => {
    const enc = new TextEncoder();
    const events = parseChunks([enc.encode("data: a\r"), new Uint8Array(0), enc.encode("\ndata: b\r\n\r\n")]);
    expect(events).toEqual([{ event: undefined, data: "a\nb" }]);
  });

  test("a CR at the end of a chunk followed by a chunk starting with a multi-byte character keeps both lines", () => {
    const bytes = new TextEncoder().encode("data: x\r€\n\n");
    const crAt = bytes.indexOf(13);
    const events = parseChunks([bytes.slice(0, crAt + 1), bytes.slice(crAt + 1, crAt + 2), bytes.slice(crAt + 2)]);
    // "€" starts a line with no colon: a field named "€", which is ignored.
    expect(events).toEqual([{ event: undefined, data: "x" }]);
  });

  test("a final event without its blank line is still delivered at end()", () => {
    const parser = new SseParser();
    expect(parser.push("event: done\ndata: [DONE]")).toEqual([]);
    expect(parser.end()).toEqual([{ event: "done", data: "[DONE]" }]);
  });

  test("sseFrame output parses back to the same event, multi-line data included", () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), fc.option(value.filter((s) => s !== "")), (dataLines, name) => {
        const data = dataLines.join("\n");
        const frame = sseFrame(data, name ?? undefined);
        expect(parseChunks([frame])).toEqual([{ event: name ?? undefined, data }]);
      }),
    );
  });
});
