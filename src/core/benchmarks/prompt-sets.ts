// The prompt sets a benchmark runs (README "Model benchmarks"): one shipped with Relay by name (the JSON
// files of ./sets/, imported so `bun build --compile` embeds them), or one the team uploads with the
// run, checked here: each refusal a 400 naming the field (prompt_set.prompts[2].expected). A prompt
// with `expected` is scored by its `match` rule (scoring.ts).
import type { BenchmarkPrompt, PromptSet } from "../../store/benchmarks/types.ts";
import { array, invalid, object, text } from "../registry/fields.ts";
import basics from "./sets/basics.json" with { type: "json" };

export const MAX_PROMPTS = 50;
const MAX_PROMPT_CHARS = 8_000;
const MAX_SYSTEM_CHARS = 4_000;
const MAX_EXPECTED_CHARS = 500;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MATCHES = ["exact", "contains", "regex"] as const;
/** The sets shipped with Relay, by name, checked like an uploaded one when first read. */
let shippedSets: Map<string, PromptSet> | undefined;

export function shipped(): Map<string, PromptSet> {
  shippedSets ??= new Map([basics].map((s) => [s.name, { ...promptSetOf(s, "shipped set", false), shipped: true }]));
  return shippedSets;
}

/** `prompt_set` of a run request: a shipped set's name, or a set given whole. */
export function promptSetField(value: unknown): PromptSet {
  if (typeof value === "string") {
    const set = shipped().get(value);
    if (!set) throw invalid("prompt_set", value, "string", `must name a shipped set (${[...shipped().keys()].join(", ")}) or be a set object`);
    return set;
  }
  const set = promptSetOf(value, "prompt_set", true);
  if (shipped().has(set.name)) throw invalid("prompt_set.name", set.name, "string", "is the name of a shipped set; give an uploaded set another name");
  return set;
}

function promptSetOf(value: unknown, path: string, uploaded: boolean): PromptSet {
  const body = object(value, path);
  const name = body.name === undefined && uploaded ? "uploaded" : text(body.name, `${path}.name`, 64);
  if (!NAME.test(name)) throw invalid(`${path}.name`, name, "string", "must be 1 to 64 letters, digits, dots, dashes or underscores");
  const items = array(body.prompts, `${path}.prompts`, MAX_PROMPTS);
  if (items.length === 0) throw invalid(`${path}.prompts`, items, "array", "must hold at least one prompt");
  const prompts = items.map((p, i) => promptOf(p, `${path}.prompts[${i}]`));
  const seen = new Set<string>();
  prompts.forEach((p, i) => {
    if (seen.has(p.id)) throw invalid(`${path}.prompts[${i}].id`, p.id, "string", "must be unique in the set");
    seen.add(p.id);
  });
  return { name, shipped: false, prompts };
}

function promptOf(value: unknown, path: string): BenchmarkPrompt {
  const p = object(value, path);
  const id = text(p.id, `${path}.id`, 64);
  if (!NAME.test(id)) throw invalid(`${path}.id`, id, "string", "must be 1 to 64 letters, digits, dots, dashes or underscores");
  const out: BenchmarkPrompt = { id, prompt: text(p.prompt, `${path}.prompt`, MAX_PROMPT_CHARS) };
  if (p.system !== undefined) out.system = text(p.system, `${path}.system`, MAX_SYSTEM_CHARS);
  if (p.match !== undefined && !MATCHES.includes(p.match as never)) throw invalid(`${path}.match`, p.match, "string", `must be one of ${MATCHES.join(", ")}`);
  if (p.expected === undefined) {
    if (p.match !== undefined) throw invalid(`${path}.expected`, undefined, "string", "is required when match is given");
    return out;
  }
  out.expected = text(p.expected, `${path}.expected`, MAX_EXPECTED_CHARS);
  out.match = (p.match as BenchmarkPrompt["match"]) ?? "contains";
  if (out.match === "regex") checkPattern(out.expected, `${path}.expected`);
  return out;
}

function checkPattern(pattern: string, path: string): void {
  try {
    new RegExp(pattern);
  } catch (e) {
    throw invalid(path, pattern, "string", `must be a valid regular expression: ${(e as Error).message}`);
  }
  if (repeatsARepeat(pattern)) throw invalid(path, pattern, "string", "must not repeat a group that holds a repetition (such as (a+)+): it can take exponential time");
}

/**
 * Whether a group holding a quantifier (at any depth) is itself quantified with *, + or {…}: the
 * commonest shape that makes a backtracking regex take exponential time. An uploaded pattern runs on the
 * server's thread, so such a pattern is refused. Escapes and character classes are skipped.
 */
function repeatsARepeat(pattern: string): boolean {
  const groups: boolean[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") i++;
    else if (c === "[") while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
    else if (c === "(") groups.push(false);
    else if (c === ")") {
      const inner = groups.pop() ?? false;
      const next = pattern[i + 1];
      const repeated = next === "*" || next === "+" || next === "{";
      if (inner && repeated) return true;
      if (groups.length) groups[groups.length - 1] ||= inner || repeated;
    } else if ((c === "*" || c === "+" || c === "{") && groups.length) groups[groups.length - 1] = true;
  }
  return false;
}
