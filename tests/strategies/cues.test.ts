// The complexity scorer's cue scanner (src/strategies/complexity/cues.ts)
// counts, without running a regex, what the regex built from its rules'
// sources counts: the first group, then the first alternative, that matches at
// a position wins and consumes its text. Proved on every text of the routing
// evaluation set and on generated text made of the rules' own words cut
// anywhere, symbols, line breaks and non-ASCII letters; then the rules that
// are easy to get wrong, one by one.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ASK, CODE_TASK, COMPOSE, countCues, CUE_COUNT, LONG_OUTPUT, MATH, REASON, cueRules, referencePattern, STACK, STEP, SYNTAX } from "../../src/strategies/complexity/cues.ts";

const scanned = (text: string): number[] => {
  const c = new Array(CUE_COUNT).fill(0);
  countCues(text.toLowerCase(), c);
  return c;
};

const { source: REFERENCE_SOURCE, cues: REFERENCE_CUES } = referencePattern();
const reference = new RegExp(REFERENCE_SOURCE, "gm");
function referenceCounts(text: string): number[] {
  const c = new Array(CUE_COUNT).fill(0);
  const subject = text.toLowerCase();
  reference.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = reference.exec(subject)) !== null) c[REFERENCE_CUES[m.findIndex((g, i) => i > 0 && g !== undefined) - 1]!]++;
  return c;
}

function textsOf(value: unknown, out: string[]): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) textsOf(v, out);
  return out;
}

/** A text each rule matches, read off its regex source (character-class rules give noise, which is fine here). */
const sampleOf = (source: string): string =>
  source.replace(/\\b/g, "").replace(/\\w[*+]/g, "ing").replace(/\\(.)/g, "$1");

describe("cue scanner against the regex of its rules", () => {
  test("same counts on every text of the routing set, ASCII or not", () => {
    const lines = readFileSync(join(import.meta.dir, "../../bench/routing/prompts.jsonl"), "utf8").split("\n").filter(Boolean);
    const texts = lines.flatMap((l) => textsOf(JSON.parse(l).request, []));
    expect(texts.length).toBeGreaterThan(1_000);
    let cues = 0;
    for (const t of texts) {
      const counts = scanned(t);
      expect(counts).toEqual(referenceCounts(t));
      cues += counts.reduce((a, b) => a + b, 0);
    }
    expect(cues).toBeGreaterThan(1_000); // the texts really exercise the rules
  });

  test("property: same counts on the rules' own words cut anywhere, in random case, with symbols and line breaks", () => {
    const samples = [...new Set(cueRules().map((r) => sampleOf(r.source))), "  at foo (", "1. ", "- ", "• ", "{\n", "typeerror:", "1,500 words", "∑", "footstep by step"];
    const piece = fc.oneof(
      fc.constantFrom(...samples).chain((p) =>
        fc.tuple(fc.integer({ min: 0, max: p.length }), fc.boolean()).map(([cut, upper]) => (upper ? p.toUpperCase() : p).slice(0, cut + 1)),
      ),
      fc.string({ unit: fc.constantFrom(..." \n\r\t{};:()-_.,!?'\"abstpXYZ019éß→"), maxLength: 5 }),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }), (parts) => expect(scanned(parts.join(""))).toEqual(referenceCounts(parts.join("")))), {
      numRuns: 3_000,
    });
  });
});

describe("cue rules", () => {
  const count = (text: string, cue: number) => scanned(text)[cue];

  test("case does not matter", () => {
    expect(scanned("EXPLAIN WHY the Cover Letter")).toEqual(scanned("explain why the cover letter"));
    expect(count("EXPLAIN WHY", REASON)).toBe(2);
  });

  test("the first group that matches at a position wins and consumes the text", () => {
    expect(count("write a cover letter", COMPOSE)).toBe(1);
    expect(count("write a cover letter", ASK)).toBe(1); // "write", not "cover"
    expect(scanned("a full implementation")[LONG_OUTPUT]).toBe(1);
    expect(scanned("a full implementation")[CODE_TASK]).toBe(0);
    expect(count("function", SYNTAX)).toBe(1);
    expect(count("functions", CODE_TASK)).toBe(1);
  });

  test("cue words are whole words; a trailing * or + takes the rest of the word", () => {
    expect(count("fixes fixing fix", CODE_TASK)).toBe(3);
    expect(count("prefix suffix", CODE_TASK)).toBe(0);
    expect(count("designs", 4)).toBe(0);
    expect(count("redesigned", 4)).toBe(1);
    expect(count("scalab", 4)).toBe(0); // \w+ needs a character more
  });

  test("unbounded phrases count inside a word, as the regex does", () => {
    expect(count("footstep by step", REASON)).toBe(1);
    expect(count("xtraceback (most recent call last)", STACK)).toBe(1);
  });

  test("line-start rules: stack frames and list items", () => {
    expect(count("error here\n    at foo (bar.js:1:2)", STACK)).toBe(1);
    expect(count("text    at foo (bar.js:1:2)", STACK)).toBe(0);
    expect(count("1. first\n2) second\n- third\n123. not", STEP)).toBe(3);
    expect(count("-> x", SYNTAX)).toBe(1);
  });

  test("symbol rules", () => {
    expect(count("if (x) {\n}", SYNTAX)).toBe(2);
    expect(count("TypeError: x is undefined", STACK)).toBe(1);
    expect(count("about 1,500 words", LONG_OUTPUT)).toBe(1);
    expect(count("f(x) = x^2 + \\frac{1}{2} ∑", MATH)).toBe(4);
  });
});
