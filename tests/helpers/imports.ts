// Reads what a source file imports from its text, for the tests that hold layers apart
// (tests/architecture/boundaries.test.ts, tests/bench/boundary.test.ts). Text, not the bundler's
// scanner: Bun.Transpiler drops type-only imports, and a type import of a store or of "bun" is
// still a dependency the layer must not have.
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;

/**
 * Static imports and re-exports (`import x from`, `import type {…} from`, `export * from`, `import "x"`),
 * matched where strings are blanked (so an import written inside a string is not one); the specifier
 * is then read at the same offsets of the text.
 */
const STATIC = /(?<![\w$.])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\bfrom\s*)?["']([^"']*)["']/dg;
/** `import(…)` and `require(…)`: the argument must be one string literal to be checked. */
const DYNAMIC = /(?<![\w$.])(?:import|require)\s*\(\s*([^)]*?)\s*\)/dg;
const LITERAL = /^(["'`])([^"'`$]+)\1$/;
/** After these a `/` starts a regular expression, not a division (`<` left out: `</p>` in TSX). */
const PUNCTUATION_BEFORE_REGEX = new Set("(,=:[!&|?{};+-*%~^");
const KEYWORD_BEFORE_REGEX = /\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

/** Whether a `/` at `at` opens a regular expression: it does where a value, not an operator, is expected. */
function opensRegex(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && /\s/.test(text[k]!)) k--;
  if (k < 0) return true;
  return PUNCTUATION_BEFORE_REGEX.has(text[k]!) || KEYWORD_BEFORE_REGEX.test(text.slice(Math.max(0, k - 9), k + 1));
}

/**
 * The text with comments blanked, and with string, template and regular-expression contents blanked
 * too unless `keepStrings`: offsets and lines stay where they were. A small lexer rather than a regex,
 * so that `"src/**"` in a string does not open a comment and hide the imports after it.
 */
export function codeOf(text: string, keepStrings = true): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  const templateDepth: number[] = []; // open `{` count of each `${…}` the lexer is inside
  let i = 0;
  const stringEnd = (quote: string, start: number): number => {
    let j = start;
    while (j < text.length && text[j] !== quote && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
    return j;
  };
  /** From inside a template literal to its end (`) or the next `${`; returns the index of that token. */
  const templateEnd = (start: number): number => {
    let j = start;
    while (j < text.length && text[j] !== "`" && !(text[j] === "$" && text[j + 1] === "{")) j += text[j] === "\\" ? 2 : 1;
    return j;
  };
  const inTemplate = (start: number) => {
    const end = templateEnd(start);
    if (!keepStrings) blank(start, end);
    if (text[end] === "$") {
      templateDepth.push(0);
      return end + 2;
    }
    return end + 1;
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(c, i + 1);
      if (!keepStrings) blank(i + 1, end);
      i = end + 1;
    } else if (c === "`") {
      i = inTemplate(i + 1);
    } else if (c === "{" && templateDepth.length > 0) {
      templateDepth[templateDepth.length - 1]!++;
      i++;
    } else if (c === "}" && templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === 0) {
      templateDepth.pop();
      i = inTemplate(i + 1);
    } else if (c === "}" && templateDepth.length > 0) {
      templateDepth[templateDepth.length - 1]!--;
      i++;
    } else if (c === "/" && opensRegex(text, i)) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== "\n" && (inClass || text[j] !== "/")) {
        if (text[j] === "[") inClass = true;
        else if (text[j] === "]") inClass = false;
        j += text[j] === "\\" ? 2 : 1;
      }
      blank(i + 1, j); // a regex holds no import; its quotes would mislead the patterns below
      i = j + 1;
    } else i++;
  }
  return out.join("");
}

/** What one file's text imports (specifiers), and what it imports that cannot be read statically. */
export function importsOf(text: string): { specifiers: string[]; unnamed: string[] } {
  const code = codeOf(text);
  const shape = codeOf(text, false);
  const at = (m: RegExpExecArray | RegExpMatchArray) => code.slice(m.indices![1]![0], m.indices![1]![1]);
  const specifiers = [...shape.matchAll(STATIC)].map(at);
  const unnamed: string[] = [];
  for (const m of shape.matchAll(DYNAMIC)) {
    const literal = LITERAL.exec(at(m));
    if (literal) specifiers.push(literal[2]!);
    else unnamed.push(code.slice(m.index, m.index! + m[0].length));
  }
  return { specifiers, unnamed };
}

/** Every source file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}
