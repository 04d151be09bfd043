// The scorer scans ASCII text with a lowercased, flag-free copy of its cue
// pattern (twice as fast). This proves the copy counts exactly what the
// case-insensitive pattern counts: on every prompt of the routing evaluation
// set and on generated ASCII text built from the cue words themselves.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CUE_PATTERNS, countCues } from "../../src/strategies/complexity/score.ts";

const counts = (subject: string, pattern: RegExp): number[] => {
  const c = new Array(13).fill(0);
  countCues(subject, pattern, c);
  return c;
};
const sameCounts = (text: string) =>
  expect(counts(text.toLowerCase(), CUE_PATTERNS.lowercase)).toEqual(counts(text, CUE_PATTERNS.caseInsensitive));

const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s);

function textsOf(value: unknown, out: string[]): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) textsOf(v, out);
  return out;
}

describe("lowercased cue pattern", () => {
  test("counts the same cues as the case-insensitive one on every ASCII text of the routing set", () => {
    const lines = readFileSync(join(import.meta.dir, "../../bench/routing/prompts.jsonl"), "utf8").split("\n").filter(Boolean);
    const texts = lines.flatMap((l) => textsOf(JSON.parse(l).request, [])).filter(isAscii);
    expect(texts.length).toBeGreaterThan(300);
    let cues = 0;
    for (const t of texts) {
      sameCounts(t);
      cues += counts(t, CUE_PATTERNS.caseInsensitive).reduce((a, b) => a + b, 0);
    }
    expect(cues).toBeGreaterThan(500); // the texts really exercise the pattern
  });

  test("property: same counts on ASCII text mixing cue words, random case and code punctuation", () => {
    const words = ["Traceback (most recent call last)", "FAILED", "TypeError:", "None", "Step-by-step", "Explain", "PROVE", "Derivative",
      "```", "=>", "&&", "System Design", "Thread-Safe", "TL;DR", "f(x)", "\\frac", "1. ", "- ", "Cover Letter", "Summarize", "RACE CONDITIONS", "at foo (", "p99", "1,500 words"];
    const piece = fc.oneof(
      fc.constantFrom(...words).chain((w) => fc.array(fc.boolean(), { minLength: w.length, maxLength: w.length }).map((up) => [...w].map((ch, i) => (up[i] ? ch.toUpperCase() : ch.toLowerCase())).join(""))),
      fc.string({ unit: fc.constantFrom(..." \n\t{};:()[]-_.,!?'\"abcXYZ019") , maxLength: 6 }),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), (parts) => sameCounts(parts.join(""))), { numRuns: 2_000 });
  });
});
