// The complexity scorer's cue words, and the scanner that counts them. The
// cues are a table, not one large regex: under load a pattern of ~300
// alternatives cost the request thread ~11 µs per svc:auto request (its
// compiled code and data fall out of the caches between requests), where
// this scanner reads each word once and looks it up in a map.
//
// The table keeps a regex's meaning: at each position the first group (then
// the first alternative) that matches wins and consumes its text, and the scan
// goes on after it. Every rule also states its regex source, and the test
// (tests/strategies/cues.test.ts) proves the scanner counts what the regex
// built from those sources counts. The scanner reads lowercased text.

import { escapeRegExp } from "../escape-regexp.ts";

export const FENCE = 0;
export const SYNTAX = 1;
export const STACK = 2;
export const CODE_TASK = 3;
export const DESIGN = 4;
export const PROOF = 5;
export const MATH = 6;
export const REASON = 7;
export const LONG_OUTPUT = 8;
export const BREVITY = 9;
export const STEP = 10;
export const COMPOSE = 11;
export const ASK = 12;
export const CUE_COUNT = 13;

/** Where a rule is tried: after a word starts, at a line start, or at one of some characters. */
type Trigger = { word: string } | { prefix: string } | { chars: string } | "line-start" | "digit-word" | "error-word";

export interface Rule {
  cue: number;
  /** Priority: the lowest order that matches at a position wins; equal orders (one alternative's variants) take the longest match. */
  order: number;
  /** The regex this rule stands for, applied to lowercased text with the `m` flag. */
  source: string;
  trigger: Trigger;
  /** A rule whose text starts with a word character but may start inside a word (no leading `\b`). */
  midWord?: boolean;
  /** The end of the match at `i`, or -1. */
  match(s: string, i: number): number;
}

const isWord = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
/** Line terminators, where `^` and `$` match with the `m` flag. */
const isLineBreak = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
/** `\s`: JavaScript's white space and line terminators. */
const isSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
/** What a list item starts with: a space or tab, a digit, or a bullet. */
const startsListItem = (c: number): boolean => c === 32 || c === 9 || (c >= 48 && c <= 57) || c === 45 || c === 42 || c === 0x2022;

/** Shell-style brace expansion, one level: "trade{-,}off{s,}" → trade-offs, trade-off, tradeoffs, tradeoff. */
function expand(pattern: string): string[] {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  const close = pattern.indexOf("}", open);
  const rest = expand(pattern.slice(close + 1));
  return pattern
    .slice(open + 1, close)
    .split(",")
    .flatMap((choice) => rest.map((r) => pattern.slice(0, open) + choice + r));
}

/**
 * A literal rule. `bounded`: a `\b` on each side whose character is a word character (the cue
 * words); otherwise none (operators, and the few phrases matched inside words). A trailing `*` or
 * `+` is `\w*` or `\w+`: the rest of the word.
 */
function literal(cue: number, order: number, text: string, bounded: boolean): Rule {
  const tail = text.endsWith("*") ? "*" : text.endsWith("+") ? "+" : "";
  const lit = tail ? text.slice(0, -1) : text;
  const first = lit.charCodeAt(0);
  const wordStart = isWord(first);
  const leading = bounded && wordStart;
  const trailing = bounded && !tail && isWord(lit.charCodeAt(lit.length - 1));
  const source = `${leading ? "\\b" : ""}${escapeRegExp(lit)}${tail ? `\\w${tail}` : ""}${trailing ? "\\b" : ""}`;
  let firstWordEnd = 0;
  while (firstWordEnd < lit.length && isWord(lit.charCodeAt(firstWordEnd))) firstWordEnd++;
  const trigger: Trigger = !wordStart
    ? { chars: lit[0]! }
    : tail && firstWordEnd === lit.length
      ? { prefix: lit }
      : { word: lit.slice(0, firstWordEnd) };
  const len = lit.length;
  return {
    cue,
    order,
    source,
    trigger,
    midWord: wordStart && !leading,
    match(s, i) {
      if (!s.startsWith(lit, i)) return -1;
      let end = i + len;
      if (tail) {
        const from = end;
        while (end < s.length && isWord(s.charCodeAt(end))) end++;
        return tail === "+" && end === from ? -1 : end;
      }
      return trailing && end < s.length && isWord(s.charCodeAt(end)) ? -1 : end;
    },
  };
}

/**
 * A rule kept as a regex, tried only where its trigger says it can start (rare positions) and, when
 * `first` is given, only at a character it can start with (a regex run costs far more than the test).
 */
function sticky(cue: number, order: number, source: string, trigger: Trigger, first?: (c: number) => boolean): Rule {
  const re = new RegExp(source, "my");
  return {
    cue,
    order,
    source,
    trigger,
    match(s, i) {
      if (first && !first(s.charCodeAt(i))) return -1;
      re.lastIndex = i;
      return re.test(s) ? re.lastIndex : -1;
    },
  };
}

/** Literal patterns (brace-expanded), or a rule of its own. */
type Alternative = { pattern: string; bounded: boolean } | ((cue: number, order: number) => Rule);
/** Cue words: literals bounded by `\b` on their word-character sides, each its own alternative. */
const words = (...patterns: string[]): Alternative[] => patterns.map((p) => ({ pattern: p, bounded: true }));
/** Unbounded literals: operators, and the phrases that may start inside a word. */
const raw = (...patterns: string[]): Alternative[] => patterns.map((p) => ({ pattern: p, bounded: false }));

const MATH_SIGNS = "∑∫√∀∃≤≥≠∞∂";

/** Cue groups in priority order: at one position the first group that matches wins, so specific groups (design, proof) precede generic ones (ask). */
const cueTable = (): Array<[cue: number, alternatives: Alternative[]]> => [
  [FENCE, raw("```", "~~~")],
  [
    SYNTAX,
    [
      ...raw("=>", "->", "::", "!={=,}", "=={=,}", "&&", "||"),
      ...words("def", "fn", "func", "function", "class", "const", "let", "var", "import", "return", "async", "await", "struct", "impl", "public", "private", "static", "void", "null", "nil", "none", "self", "this"),
      (cue, order) => sticky(cue, order, "[{};]$", { chars: "{};" }),
    ],
  ],
  [
    STACK,
    [
      ...raw("traceback (most recent call last)"),
      (cue, order) => sticky(cue, order, "^\\s+at \\S+ \\(", "line-start", isSpace),
      (cue, order) => errorColon(cue, order),
      ...raw("panicked at", "segmentation fault"),
      ...words("failed"),
    ],
  ],
  [
    CODE_TASK,
    words("bug{s,}", "fix*", "crash*", "failing", "debug*", "refactor*", "implement*", "compile{s,}", "compiler", "unit test{s,}", "regex", "endpoint", "stack trace",
      "segfault", "memory leak", "typescript", "python", "javascript", "rust", "golang", "sql", "bash", "script", "function{s,}", "method{s,}", "api"),
  ],
  [
    DESIGN,
    words("architect*", "system design", "{re,}design{ing,ed,}", "scalab+", "scaling", "distributed", "microservice{s,}", "multi-tenant", "migrat+", "concurren+",
      "race condition{s,}", "deadlock{s,}", "thread{-, }safe*", "lock-free", "trade{-,}off{s,}", "multi-file", "across {the,our,this,all} {codebase,repo*,services,service}",
      "end-to-end", "fault{-, }toleran+", "fault injection", "consistency", "consensus", "replicat+", "sharding", "idempoten+", "bounded context{s,}",
      "backward{-, }compatib+", "{without,zero}{-, }downtime", "state machine", "invariant{s,}", "throughput", "p99", "latency", "key rotation"),
  ],
  [PROOF, words("prove", "proof{s,}", "derive", "derivation", "theorem", "lemma", "corollary", "rigorous*", "induction", "bijection", "isomorph*")],
  [
    MATH,
    [
      ...words("integral", "integrate", "derivative", "differential", "eigen*", "matrix", "matrices", "converge*", "diverge*", "probability", "expected value",
        "variance", "optimi{s,z}*", "asymptotic*", "big{-,}o", "recurrence", "polynomial", "irrational", "closed{-, }form", "equation{s,}"),
      (cue, order) => sticky(cue, order, `[${MATH_SIGNS}]`, { chars: MATH_SIGNS }),
      ...words("\\{frac,sum,int,sqrt}"),
      ...raw("^{0,1,2,3,4,5,6,7,8,9}"),
      ...words("{f,g}(x)"),
    ],
  ],
  [
    REASON,
    [
      ...raw("step{-, }by{-, }step"),
      ...words("why", "explain", "analy{s,z}e", "analysis", "compare", "contrast", "evaluate", "justify", "critique", "pros and cons", "implication{s,}",
        "think {carefully,hard,through}", "reason {about,through}", "root cause", "which is better", "should {i,we}", "assumption{s,}", "sensitivity", "scenario{s,}",
        "constraint{s,}", "uncertaint+", "counterargument{s,}", "nuanced", "methodolog+", "evidence", "framework"),
    ],
  ],
  [
    LONG_OUTPUT,
    [
      ...words("detailed", "in{-, }depth", "comprehensive", "thorough{ly,}", "essay", "report", "long-form", "white{ ,}paper", "full implementation", "complete implementation"),
      (cue, order) => sticky(cue, order, "\\b\\d[\\d,]{2,6}[- ]words?\\b", "digit-word"),
    ],
  ],
  [BREVITY, words("briefly", "one word", "one sentence", "one line", "short answer", "yes or no", "tl{;,}dr", "in a few words", "concise{ly,}", "quick question")],
  [
    STEP,
    [(cue, order) => sticky(cue, order, "^[ \\t]*(?:\\d{1,2}[.)]|[-*•])[ \\t]+", "line-start", startsListItem), ...words("after that", "and then", "finally")],
  ],
  [COMPOSE, words("cover letter", "blog post", "story", "toast", "speech", "job description", "letter", "newsletter", "announcement", "linkedin post", "proposal", "chapter", "memo", "about us")],
  [
    ASK,
    words("describe", "build", "write", "create", "draft", "propose", "identify", "recommend", "plan", "discuss", "show", "assess", "review", "estimate", "formulate",
      "reconstruct", "generali{s,z}e", "include", "cover", "list", "give", "find", "determine", "solve", "calculate", "compute", "summari{s,z}e", "translate"),
  ],
];

/** `\b\w*(?:error|exception):` — a word ending in error or exception, then a colon. */
function errorColon(cue: number, order: number): Rule {
  return {
    cue,
    order,
    source: "\\b\\w*(?:error|exception):",
    trigger: "error-word",
    match(s, i) {
      let end = i;
      while (end < s.length && isWord(s.charCodeAt(end))) end++;
      if (s.charCodeAt(end) !== 58 /* : */) return -1;
      return s.endsWith("error", end) || s.endsWith("exception", end) ? end + 1 : -1;
    },
  };
}

/** Every rule, in priority order; one alternative's variants share an order, longest first. */
function rulesOf(table: ReturnType<typeof cueTable>): Rule[] {
  return table.flatMap(([cue, alternatives], g) =>
    alternatives.flatMap((alt, a) => {
      const order = g * 1000 + a;
      if (typeof alt === "function") return [alt(cue, order)];
      return expand(alt.pattern)
        .sort((x, y) => y.length - x.length)
        .map((variant) => literal(cue, order, variant, alt.bounded));
    }),
  );
}

// Lookup tables, by trigger. Words are found by a hash of their characters, computed while the
// scan reads them (no string per word); a rule's match() checks the text itself, so two words
// sharing a hash cost one failed comparison, never a wrong count.
const hashStep = (h: number, c: number): number => (Math.imul(h, 31) + c) | 0;
function hashOf(word: string): number {
  let h = 0;
  for (let i = 0; i < word.length; i++) h = hashStep(h, word.charCodeAt(i));
  return h;
}

interface Tables {
  table: ReturnType<typeof cueTable>;
  rules: readonly Rule[];
  byWord: Map<number, Rule[]>;
  /** Rules for the rest of a word (`fix*`), by the hash of their text's first three characters. */
  byPrefix: Map<number, Rule[]>;
  /** Rules that start with a symbol, by its character code (an array for ASCII: spaces and punctuation are frequent). */
  byAsciiChar: Array<Rule[] | undefined>;
  byChar: Map<number, Rule[]>;
  lineStart: Rule[];
  digitWord: Rule[];
  errorWord: Rule[];
  /**
   * The rules that may start inside a word, by the last character of their first word (which must
   * end where the text's word does): one array read per word that matched nothing at its start.
   */
  midWordByLast: Array<{ word: string; rules: Rule[] } | undefined>;
}

function add<K>(map: Map<K, Rule[]>, key: K, rule: Rule): void {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}

function buildTables(): Tables {
  const table = cueTable();
  const rules = rulesOf(table);
  const t: Tables = {
    table,
    rules,
    byWord: new Map(),
    byPrefix: new Map(),
    byAsciiChar: new Array(128).fill(undefined),
    byChar: new Map(),
    lineStart: [],
    digitWord: [],
    errorWord: [],
    midWordByLast: new Array(128).fill(undefined),
  };
  for (const rule of rules) {
    const trigger = rule.trigger;
    if (trigger === "line-start") t.lineStart.push(rule);
    else if (trigger === "digit-word") t.digitWord.push(rule);
    else if (trigger === "error-word") t.errorWord.push(rule);
    else if ("word" in trigger) {
      add(t.byWord, hashOf(trigger.word), rule);
      if (rule.midWord) {
        const last = trigger.word.charCodeAt(trigger.word.length - 1);
        const entry = t.midWordByLast[last];
        if (entry && entry.word !== trigger.word) throw new Error(`two mid-word cue phrases end their first word in ${trigger.word[trigger.word.length - 1]}`);
        if (entry) entry.rules.push(rule);
        else t.midWordByLast[last] = { word: trigger.word, rules: [rule] };
      }
    } else if ("prefix" in trigger) {
      if (trigger.prefix.length < 3) throw new Error(`cue prefix too short: ${trigger.prefix}`);
      add(t.byPrefix, hashOf(trigger.prefix.slice(0, 3)), rule);
    } else for (const ch of trigger.chars) add(t.byChar, ch.charCodeAt(0), rule);
  }
  for (const [c, list] of t.byChar) if (c < 128) t.byAsciiChar[c] = list;
  for (const list of [...t.byWord.values(), ...t.byPrefix.values(), ...t.byChar.values()]) list.sort((a, b) => a.order - b.order);
  return t;
}

let tables: Tables | undefined;
/**
 * Built on the first scan, not when the module loads: built at load they added ~4.5 MB to the idle
 * RSS of `dist/relay` and ~10 ms to its start-up (bench/startup.ts, a2ad025 against its parent),
 * which a Relay that never routes `svc:auto` should not pay.
 */
const built = (): Tables => (tables ??= buildTables());

/** Every rule, in priority order (for the test that holds the scanner to the rules' regex sources). */
export const cueRules = (): readonly Rule[] => built().rules;

/** The cues as one regex source with a capture group per cue, in priority order, and the cue of each group: the form the test checks the scanner against. */
export function referencePattern(): { source: string; cues: number[] } {
  const { table, rules } = built();
  return {
    source: table.map(([cue]) => `(${rules.filter((r) => r.cue === cue).map((r) => r.source).join("|")})`).join("|"),
    cues: table.map(([cue]) => cue),
  };
}

/** The winning match at one position: the lowest order, then the longest. */
class Best {
  rule: Rule | undefined;
  end = -1;

  reset(): void {
    this.rule = undefined;
    this.end = -1;
  }

  try(rules: readonly Rule[] | undefined, s: string, i: number): void {
    if (!rules) return;
    for (const rule of rules) {
      if (this.rule && rule.order > this.rule.order) return; // each list is sorted by order
      const end = rule.match(s, i);
      if (end < 0) continue;
      if (!this.rule || rule.order < this.rule.order || end > this.end) {
        this.rule = rule;
        this.end = end;
      }
    }
  }
}

const best = new Best();

/** Adds each cue in `s` (lowercased text) to its group's count. */
export function countCues(s: string, counts: number[]): void {
  const { byWord, byPrefix, digitWord, errorWord, lineStart, midWordByLast, byAsciiChar, byChar } = built();
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    const atLineStart = i === 0 || isLineBreak(s.charCodeAt(i - 1));
    // A space starts a cue only at a line start (an indented stack frame or list item).
    if (c === 32 && !atLineStart) {
      i++;
      continue;
    }
    best.reset();
    if (isWord(c)) {
      const wordStart = i === 0 || !isWord(s.charCodeAt(i - 1));
      let h = c;
      let prefix = 0;
      let j = i + 1;
      for (let d; j < n && isWord((d = s.charCodeAt(j))); j++) {
        h = hashStep(h, d);
        if (j === i + 2) prefix = h;
      }
      if (wordStart) {
        best.try(byWord.get(h), s, i);
        if (j - i >= 3) best.try(byPrefix.get(prefix), s, i);
        if (c <= 57) best.try(digitWord, s, i);
        if (s.charCodeAt(j) === 58 /* : */) best.try(errorWord, s, i);
        if (atLineStart) best.try(lineStart, s, i);
      }
      if (!best.rule) {
        // Inside a word only the unbounded phrases can start, and their first word ends where the text's does.
        const m = midWordByLast[s.charCodeAt(j - 1)];
        const at = m ? j - m.word.length : -1;
        if (m && at >= (wordStart ? i + 1 : i) && s.startsWith(m.word, at)) best.try(m.rules, s, at);
      }
      if (best.rule) {
        counts[best.rule.cue]++;
        i = best.end;
      } else i = j;
      continue;
    }
    best.try(c < 128 ? byAsciiChar[c] : byChar.get(c), s, i);
    if (atLineStart) best.try(lineStart, s, i);
    if (best.rule) {
      counts[best.rule.cue]++;
      i = best.end;
    } else i++;
  }
}
