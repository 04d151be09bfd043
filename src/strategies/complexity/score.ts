// Complexity scorer: a pure, cheap heuristic that maps a request to a model tier.
// It runs on every `svc:auto` call, so it avoids per-call allocation of regexes,
// scans each text once with a single combined pattern and caps how much it reads.
// The latest human turn carries most of the weight: agent clients (Claude Code,
// Cursor...) resend a huge system prompt and dozens of tool definitions on every
// call, and those say nothing about how hard the current question is.

import type { ChatRequest, ContentBlock, Message, Tier } from "../../plugin/api.ts";

export interface Thresholds {
  /** Score at or above which a request is `moderate`. */
  moderate: number;
  /** Score at or above which a request is `complex`. */
  complex: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { moderate: 1, complex: 3.5 };

export interface ScoreOptions {
  thresholds?: Partial<Thresholds>;
}

export interface ComplexityScore {
  score: number;
  tier: Tier;
  reasons: string[];
}

// How much text each region contributes to the cue scan; beyond the cap only length counts.
const LATEST_TURN_SCAN = 12_000;
// A short first paragraph followed by a long body is an instruction plus pasted
// material (an article, a transcript, a log): only the instruction says what is asked.
const INSTRUCTION_MAX = 800;
const MATERIAL_MIN = 500;
const MATERIAL_SCAN = 6_000;
const TOOL_RESULT_SCAN = 1_500;
const TOOL_RESULTS_SCANNED = 3;
const HISTORY_SCAN = 2_000;
const HISTORY_PER_MESSAGE = 400;
const CHARS_PER_TOKEN = 4;

// Cue groups, in the order of the capture groups of CUE_PATTERN. At one position the
// first matching group wins, so specific groups (design, proof) precede generic ones (ask).
const FENCE = 0;
const SYNTAX = 1;
const STACK = 2;
const CODE_TASK = 3;
const DESIGN = 4;
const PROOF = 5;
const MATH = 6;
const REASON = 7;
const LONG_OUTPUT = 8;
const BREVITY = 9;
const STEP = 10;
const COMPOSE = 11;
const ASK = 12;
const CUE_COUNT = 13;

/** The cue alternation: each match lands in exactly one capture group. */
const CUE_SOURCE = [
  /(```|~~~)/,
  /(=>|->|::|!==?|===?|&&|\|\||\b(?:def|fn|func|function|class|const|let|var|import|return|async|await|struct|impl|public|private|static|void|null|nil|None|self|this)\b|[{};]$)/,
  /(Traceback \(most recent call last\)|^\s+at \S+ \(|\b\w*(?:Error|Exception):|panicked at|Segmentation fault|\bFAILED\b)/,
  /\b(bugs?|fix\w*|crash\w*|failing|debug\w*|refactor\w*|implement\w*|compiles?|compiler|unit tests?|regex|endpoint|stack trace|segfault|memory leak|typescript|python|javascript|rust|golang|sql|bash|script|functions?|methods?|api)\b/,
  /\b(architect\w*|system design|(?:re)?design(?:ing|ed)?|scalab\w+|scaling|distributed|microservices?|multi-tenant|migrat\w+|concurren\w+|race conditions?|deadlocks?|thread[- ]safe\w*|lock-free|trade-?offs?|multi-file|across (?:the|our|this|all) (?:codebase|repo\w*|services?)|end-to-end|fault[- ]toleran\w+|fault injection|consistency|consensus|replicat\w+|sharding|idempoten\w+|bounded contexts?|backward[- ]compatib\w+|(?:without|zero)[- ]downtime|state machine|invariants?|throughput|p99|latency|key rotation)\b/,
  /\b(prove|proofs?|derive|derivation|theorem|lemma|corollary|rigorous\w*|induction|bijection|isomorph\w*)\b/,
  /\b(integral|integrate|derivative|differential|eigen\w*|matri(?:x|ces)|converge\w*|diverge\w*|probability|expected value|variance|optimi[sz]\w*|asymptotic\w*|big-?o|recurrence|polynomial|irrational|closed[- ]form|equations?)\b|([∑∫√∀∃≤≥≠∞∂]|\\(?:frac|sum|int|sqrt)\b|\^\d|\b[fg]\(x\))/,
  /(step[- ]by[- ]step|\b(?:why|explain|analy[sz]e|analysis|compare|contrast|evaluate|justify|critique|pros and cons|implications?|think (?:carefully|hard|through)|reason (?:about|through)|root cause|which is better|should (?:i|we)|assumptions?|sensitivity|scenarios?|constraints?|uncertaint\w+|counterarguments?|nuanced|methodolog\w+|evidence|framework)\b)/,
  /\b(detailed|in[- ]depth|comprehensive|thorough(?:ly)?|essay|report|long-form|white ?paper|full implementation|complete implementation|\d[\d,]{2,6}[- ]words?)\b/,
  /\b(briefly|one word|one sentence|one line|short answer|yes or no|tl;?dr|in a few words|concise(?:ly)?|quick question)\b/,
  /(^[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+|\b(?:after that|and then|finally)\b)/,
  /\b(cover letter|blog post|story|toast|speech|job description|letter|newsletter|announcement|linkedin post|proposal|chapter|memo|about us)\b/,
  /\b(describe|build|write|create|draft|propose|identify|recommend|plan|discuss|show|assess|review|estimate|formulate|reconstruct|generali[sz]e|include|cover|list|give|find|determine|solve|calculate|compute|summari[sz]e|translate)\b/,
]
  .map((r) => r.source)
  .join("|");

/**
 * Where a cue can start: a word start (every `\b` alternative is followed by a word character),
 * a symbol (fences, operators, math signs), a line start (indented stack frames, list items), or
 * the t, p or s of the few phrases not anchored at a word boundary (traceback, panicked at,
 * segmentation fault, step-by-step). The engine otherwise tries all alternatives at every
 * position; with this test first it drops most positions in a few comparisons. It only skips
 * positions where no alternative could match, so the matches are the same (proved in
 * tests/strategies/cue-pattern.test.ts).
 */
const CUE_START = String.raw`(?=\b[a-z0-9_]|[^a-z0-9_\s]|[tps]|^)`;

/** One pattern, one pass. */
const CUE_PATTERN = new RegExp(`${CUE_START}(?:${CUE_SOURCE})`, "gim");

/** Capture group (1-based) → cue index; the math group has a symbolic sub-group. */
const GROUP_TO_CUE = [FENCE, SYNTAX, STACK, CODE_TASK, DESIGN, PROOF, MATH, MATH, REASON, LONG_OUTPUT, BREVITY, STEP, COMPOSE, ASK];

/** The pattern with every literal letter lowercased; escapes such as `\S` or `\W` keep their case (exported for the cue-pattern test). */
export function lowerLiterals(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") out += source[i] + (source[++i] ?? "");
    else out += source[i]!.toLowerCase();
  }
  return out;
}

// For ASCII text, matching case-insensitively is matching the lowercased text against the lowercased
// pattern, and without the `i` flag the engine runs the scan in about half the time (scoring is on
// every svc:auto request). Other text keeps the `i` pattern, whose Unicode case rules differ.
const CUE_PATTERN_LOWER = new RegExp(lowerLiterals(CUE_PATTERN.source), "gm");
const NON_ASCII = /[^\x00-\x7f]/;

function scan(text: string, limit: number, counts: number[]): number {
  const slice = text.length > limit ? text.slice(0, limit) : text;
  const ascii = !NON_ASCII.test(slice);
  const pattern = ascii ? CUE_PATTERN_LOWER : CUE_PATTERN;
  countCues(ascii ? slice.toLowerCase() : slice, pattern, counts);
  return slice.length;
}

/** The forms of the cue pattern, and the alternation without its start test (exported for the test that proves them equal). */
export const CUE_PATTERNS = { caseInsensitive: CUE_PATTERN, lowercase: CUE_PATTERN_LOWER, unfiltered: new RegExp(CUE_SOURCE, "gim") } as const;

/** Adds each cue match in `subject` to its group's count. */
export function countCues(subject: string, pattern: RegExp, counts: number[]): void {
  pattern.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(subject)) !== null) {
    for (let g = 1; g < m.length; g++) {
      if (m[g] !== undefined) {
        counts[GROUP_TO_CUE[g - 1]]++;
        break;
      }
    }
  }
}

const hasHumanContent = (msg: Message): boolean =>
  msg.role === "user" && msg.content.some((b) => b.type === "text" || b.type === "image");

interface Features {
  latest: number[];
  toolResults: number[];
  history: number[];
  material: number[];
  instructionChars: number;
  materialChars: number;
  images: number;
  toolResultCount: number;
  toolErrors: number;
}

function collectText(text: string, f: Features): void {
  const split = text.indexOf("\n\n");
  if (split < 0 || split > INSTRUCTION_MAX || text.length - split < MATERIAL_MIN) {
    f.instructionChars += text.length;
    scan(text, LATEST_TURN_SCAN, f.latest);
    return;
  }
  // The closing paragraph often holds the actual question ("...\n\nWhat's the gist?").
  const last = text.lastIndexOf("\n\n");
  const closing = text.length - last <= INSTRUCTION_MAX ? last : text.length;
  f.instructionChars += split + (text.length - closing);
  f.materialChars += closing - split;
  scan(text.slice(0, split), INSTRUCTION_MAX, f.latest);
  if (closing < text.length) scan(text.slice(closing), INSTRUCTION_MAX, f.latest);
  scan(text.slice(split, closing), MATERIAL_SCAN, f.material);
}

function collectBlock(block: ContentBlock, f: Features, budget: { toolResults: number }): void {
  if (block.type === "text") {
    collectText(block.text, f);
  } else if (block.type === "image") {
    f.images++;
  } else if (block.type === "tool_result") {
    f.toolResultCount++;
    if (block.isError) f.toolErrors++;
    for (const part of block.content) {
      if (part.type === "image") f.images++;
      else if (budget.toolResults > 0) {
        budget.toolResults--;
        scan(part.text, TOOL_RESULT_SCAN, f.toolResults);
      }
    }
  }
}

function collectFeatures(messages: Message[]): Features {
  const f: Features = {
    latest: new Array(CUE_COUNT).fill(0),
    toolResults: new Array(CUE_COUNT).fill(0),
    history: new Array(CUE_COUNT).fill(0),
    material: new Array(CUE_COUNT).fill(0),
    instructionChars: 0,
    materialChars: 0,
    images: 0,
    toolResultCount: 0,
    toolErrors: 0,
  };
  let latest = messages.length - 1;
  while (latest >= 0 && !hasHumanContent(messages[latest])) latest--;
  // The newest tool results (the agent loop after the human spoke) are read first.
  const budget = { toolResults: TOOL_RESULTS_SCANNED };
  for (let i = messages.length - 1; i >= Math.max(latest, 0); i--) {
    if (messages[i].role !== "user") continue;
    for (const block of messages[i].content) collectBlock(block, f, budget);
  }
  let historyLeft = HISTORY_SCAN;
  for (let i = latest - 1; i >= 0 && historyLeft > 0; i--) {
    for (const block of messages[i].content) {
      if (block.type !== "text" || historyLeft <= 0) continue;
      historyLeft -= scan(block.text, Math.min(HISTORY_PER_MESSAGE, historyLeft), f.history);
    }
  }
  return f;
}

function systemChars(req: ChatRequest): number {
  let n = 0;
  for (const block of req.system ?? []) n += block.text.length;
  return n;
}

/** Points for a cue seen `count` times, capped so one repeated word cannot decide the tier. */
const capped = (count: number, each: number, max: number): number => Math.min(count * each, max);

/** The running score and its reasons; a class, not a closure, so a request makes no function. */
class Tally {
  score = 0;
  readonly reasons: string[] = [];

  add(points: number, reason: string): void {
    if (points === 0) return;
    this.score += points;
    this.reasons.push(reason);
  }

  /** A cue group's points, with its reason text built only when it scores (most groups score 0). */
  cue(points: number, label: string, count: number): void {
    if (points !== 0) this.add(points, `${label}: ${count}`);
  }
}

export function scoreRequest(req: ChatRequest, opts: ScoreOptions = {}): ComplexityScore {
  const t = opts.thresholds;
  const moderateAt = t?.moderate ?? DEFAULT_THRESHOLDS.moderate;
  const complexAt = t?.complex ?? DEFAULT_THRESHOLDS.complex;
  const f = collectFeatures(req.messages);
  const c = f.latest;
  const tally = new Tally();

  const tokens = Math.round(f.instructionChars / CHARS_PER_TOKEN);
  if (tokens >= 2_000) tally.add(2.5, `very long prompt: ~${tokens} tokens`);
  else if (tokens >= 600) tally.add(1.5, `long prompt: ~${tokens} tokens`);
  else if (tokens >= 150) tally.add(1, `medium prompt: ~${tokens} tokens`);
  else if (tokens >= 40) tally.add(0.5, `short prompt: ~${tokens} tokens`);

  const turns = req.messages.length;
  if (turns >= 20) tally.add(1.5, `long conversation: ${turns} turns`);
  else if (turns >= 8) tally.add(0.75, `conversation: ${turns} turns`);

  const materialTokens = Math.round(f.materialChars / CHARS_PER_TOKEN);
  if (materialTokens >= 3_000) tally.add(1, `long pasted material: ~${materialTokens} tokens`);
  else if (materialTokens >= 600) tally.add(0.5, `pasted material: ~${materialTokens} tokens`);

  const m = f.material;
  if (c[FENCE] + m[FENCE] > 0) tally.add(1.5, "code block in prompt");
  else if (c[SYNTAX] + m[SYNTAX] >= 4) tally.add(1, "code-like syntax");
  if (c[STACK] + m[STACK] > 0) tally.add(1, "stack trace in prompt");
  if (c[COMPOSE] > 0) tally.add(1, "composition task");
  tally.cue(capped(c[CODE_TASK], 0.5, 1), "coding cues", c[CODE_TASK]);
  tally.cue(capped(c[DESIGN], 1.5, 4.5), "design cues", c[DESIGN]);
  tally.cue(capped(c[PROOF], 3.5, 5), "proof cues", c[PROOF]);
  tally.cue(capped(c[MATH], 1, 3), "math cues", c[MATH]);
  tally.cue(capped(c[REASON], 0.75, 3), "reasoning cues", c[REASON]);
  const asks = c[ASK] + c[REASON];
  if (asks >= 6) tally.add(2.5, `many asks: ${asks}`);
  else if (asks >= 4) tally.add(1.5, `several asks: ${asks}`);
  else if (asks >= 2) tally.add(0.75, `asks: ${asks}`);
  if (c[STEP] >= 3) tally.add(1.5, `multi-step instructions: ${c[STEP]}`);
  tally.cue(capped(c[LONG_OUTPUT], 1.25, 2.5), "long output asked", c[LONG_OUTPUT]);
  tally.cue(-capped(c[BREVITY], 1, 2), "brevity asked", c[BREVITY]);

  const maxTokens = req.maxTokens ?? 0;
  if (maxTokens >= 32_000) tally.add(2, `max_tokens ${maxTokens}`);
  else if (maxTokens >= 8_000) tally.add(1, `max_tokens ${maxTokens}`);

  if (f.images > 0) tally.add(Math.min(f.images, 2), `images attached: ${f.images}`);

  const effort = req.reasoning;
  if (effort && !effort.disabled) {
    const budget = effort.budgetTokens ?? 0;
    if (effort.effort === "high" || budget >= 16_000) tally.add(3, "reasoning requested: high");
    else if (effort.effort === "medium" || budget >= 4_000) tally.add(1.5, "reasoning requested: medium");
  }

  // Agent context: the mere presence of tools or a big system prompt adds little.
  if (req.tools?.length) tally.add(0.25, `tools offered: ${req.tools.length}`);
  if (systemChars(req) >= 8_000) tally.add(0.25, "long system prompt");
  if (f.toolResultCount > 0) {
    const t = f.toolResults;
    // A failed call usually carries the stack trace, so the two signals are not added up.
    if (t[STACK] > 0) tally.add(1.5, "stack trace in tool result");
    else if (t[FENCE] > 0 || t[SYNTAX] >= 6) tally.add(0.75, "code in tool result");
    else if (f.toolErrors > 0) tally.add(0.5, `failed tool calls: ${f.toolErrors}`);
  }

  const h = f.history;
  if (h[FENCE] > 0 || h[STACK] > 0) tally.add(0.5, "code earlier in conversation");
  if (h[PROOF] + h[MATH] + h[DESIGN] >= 2) tally.add(0.5, "hard topic earlier in conversation");

  const score = tally.score;
  const tier: Tier = score >= complexAt ? "complex" : score >= moderateAt ? "moderate" : "simple";
  return { score, tier, reasons: tally.reasons };
}
