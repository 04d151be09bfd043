// The scorer scans ASCII text with a lowercased, flag-free copy of its cue
// pattern (twice as fast). This proves the copy counts exactly what the
// case-insensitive pattern counts: on every prompt of the routing evaluation
// set and on generated ASCII text built from the cue words themselves. Both
// forms start with a test of where a cue can start; the last block proves that
// test skips no match: the same matches, at the same positions and in the same
// groups, as the bare alternation.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CUE_PATTERNS, countCues, lowerLiterals } from "../../src/strategies/complexity/score.ts";

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

/** Every match as "position:group" (group 1-based), in order. */
function matches(subject: string, pattern: RegExp): string[] {
  const out: string[] = [];
  pattern.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(subject)) !== null) out.push(`${m.index}:${m.findIndex((g, i) => i > 0 && g !== undefined)}`);
  return out;
}

describe("cue start test", () => {
  const unfilteredLower = new RegExp(lowerLiterals(CUE_PATTERNS.unfiltered.source), "gm");
  const sameMatches = (text: string) => {
    expect(matches(text, CUE_PATTERNS.caseInsensitive)).toEqual(matches(text, CUE_PATTERNS.unfiltered));
    if (isAscii(text)) expect(matches(text.toLowerCase(), CUE_PATTERNS.lowercase)).toEqual(matches(text.toLowerCase(), unfilteredLower));
  };

  test("skips no match on any text of the routing set, ASCII or not", () => {
    const lines = readFileSync(join(import.meta.dir, "../../bench/routing/prompts.jsonl"), "utf8").split("\n").filter(Boolean);
    const texts = lines.flatMap((l) => textsOf(JSON.parse(l).request, []));
    let found = 0;
    for (const t of texts) {
      sameMatches(t);
      found += matches(t, CUE_PATTERNS.unfiltered).length;
    }
    expect(found).toBeGreaterThan(500);
  });

  test("property: skips no match on text of cue phrases cut anywhere, symbols, line breaks and non-ASCII letters", () => {
    const phrases = ["traceback (most recent call last)", "panicked at", "segmentation fault", "step-by-step", "step by step", "  at foo (", "1. ", "- ", "• ",
      "TypeError:", "fooException:", "f(x)", "\\sum", "^2", "∑", "```", "~~~", "=>", "->", "::", "!==", "&&", "||", "{", ";", "1,500 words", "p99", "tl;dr", "FAILED"];
    const piece = fc.oneof(
      fc.constantFrom(...phrases).chain((p) => fc.integer({ min: 0, max: p.length }).map((cut) => p.slice(0, cut + 1))),
      fc.string({ unit: fc.constantFrom(..." \n\r\t{};:()-_.,!?'\"abstpXYZ019éß→"), maxLength: 5 }),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }), (parts) => sameMatches(parts.join(""))), { numRuns: 3_000 });
  });
});
