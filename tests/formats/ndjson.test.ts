import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { NdjsonParser } from "../../src/core/formats/ndjson.ts";

// JSON-ish lines with multi-byte UTF-8, blank lines and CRLF endings (a trailing CR is trimmed).
const line = fc.string({ unit: fc.constantFrom("a", " ", "{", "}", '"', "é", "€", "😀", "\t"), maxLength: 10 });
const ending = fc.constantFrom("\n", "\r\n");

/** Cuts at the given offsets (sorted; repeats give empty chunks, as a socket read can). */
function cut(whole: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = offsets.map((o) => o % (whole.length + 1)).sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(whole.slice(from, p));
    from = p;
  }
  parts.push(whole.slice(from));
  return parts;
}

describe("NdjsonParser", () => {
  test("byte chunks split anywhere give one event per non-empty line, in order", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(line, ending), { maxLength: 8 }), fc.boolean(), fc.array(fc.nat({ max: 200 }), { maxLength: 10 }), (lines, lastEnded, offsets) => {
        const text = lines.map(([l, e], i) => (i < lines.length - 1 || lastEnded ? l + e : l)).join("");
        const parser = new NdjsonParser();
        const got = [...cut(new TextEncoder().encode(text), offsets).flatMap((c) => parser.push(c)), ...parser.end()];
        expect(got).toEqual(lines.map(([l]) => l.trim()).filter((l) => l !== "").map((data) => ({ data })));
      }),
      { numRuns: 300 },
    );
  });
});
