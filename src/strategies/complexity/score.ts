// Complexity scorer: a pure, cheap heuristic that maps a request to a model tier.
// It runs on every `svc:auto` call, so it avoids per-call allocation of regexes,
// scans each text once for its cue words (cues.ts) and caps how much it reads.
// The latest human turn carries most of the weight: agent clients (Claude Code,
// Cursor...) resend a huge system prompt and dozens of tool definitions on every
// call, and those say nothing about how hard the current question is.

import type { ChatRequest, ContentBlock, Message, Tier } from "../../plugin/api.ts";
import { ASK, BREVITY, CODE_TASK, COMPOSE, countCues, CUE_COUNT, DESIGN, FENCE, LONG_OUTPUT, MATH, PROOF, REASON, STACK, STEP, SYNTAX } from "./cues.ts";

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

function scan(text: string, limit: number, counts: number[]): number {
  const slice = text.length > limit ? text.slice(0, limit) : text;
  countCues(slice.toLowerCase(), counts);
  return slice.length;
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
