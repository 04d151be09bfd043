// Cascade judge: decides from a complete answer whether a cheaper model's reply is
// good enough or the request should escalate to the next model in the chain.
// Pure and conservative: it only rejects answers that are demonstrably unusable.

import type { ChatRequest, ChatResponse, ToolUseBlock, Verdict } from "../../plugin/api.ts";
import { escapeRegExp } from "../escape-regexp.ts";

/** Hedging only signals uncertainty in a short answer; a long one that hedges once is still an answer. */
const HEDGE_MAX_CHARS = 600;

const HEDGES = [
  "i'm not sure",
  "i am not sure",
  "i'm not certain",
  "i am not certain",
  "i cannot determine",
  "i can't determine",
  "unable to determine",
  "i don't know",
  "i do not know",
  "as an ai",
  "i'm unable to",
  "i am unable to",
  "i cannot answer",
  "i can't answer",
  "i cannot help",
  "i can't help",
  "i don't have enough information",
  "i do not have enough information",
  "i don't have access",
  "i do not have access",
  "i cannot be certain",
  "i can't be certain",
  "it is unclear",
  "it's unclear",
  "hard to say",
];

/** Curly and straight apostrophes both occur in model output. */
const HEDGE_PATTERN = new RegExp(HEDGES.map((h) => escapeRegExp(h).replace(/'/g, "['’]")).join("|"), "i");

const reject = (reason: string): Verdict => ({ accept: false, reason });
const ACCEPT: Verdict = { accept: true };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function requiredKeys(schema: unknown): string[] {
  if (!isPlainObject(schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((k): k is string => typeof k === "string");
}

function checkJson(text: string, req: ChatRequest): Verdict {
  const format = req.responseFormat;
  if (format?.type !== "json" && format?.type !== "json_schema") return ACCEPT;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject("invalid JSON");
  }
  if (format.type === "json_schema") {
    const missing = requiredKeys(format.schema).filter((k) => !isPlainObject(value) || !(k in value));
    if (missing.length) return reject(`JSON missing required keys: ${missing.join(", ")}`);
  }
  return ACCEPT;
}

function checkToolCall(call: ToolUseBlock, req: ChatRequest): Verdict {
  const tool = req.tools?.find((t) => t.name === call.name);
  if (!tool) return reject(`unknown tool: ${call.name}`);
  if (!isPlainObject(call.input)) return reject(`tool ${call.name}: input is not an object`);
  const input = call.input;
  const missing = requiredKeys(tool.parameters).filter((k) => !(k in input));
  if (missing.length) return reject(`tool ${call.name}: missing required params: ${missing.join(", ")}`);
  return ACCEPT;
}

export function judge(res: ChatResponse, req: ChatRequest): Verdict {
  if (res.stopReason === "max_tokens") return reject("truncated: max_tokens");
  if (res.stopReason === "refusal") return reject("refusal");
  if (res.stopReason === "content_filter") return reject("content filtered");

  let text = "";
  const calls: ToolUseBlock[] = [];
  for (const block of res.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "tool_use") calls.push(block);
  }
  text = text.trim();
  if (!text && calls.length === 0) return reject("empty answer");

  for (const call of calls) {
    const verdict = checkToolCall(call, req);
    if (!verdict.accept) return verdict;
  }
  if (calls.length === 0) {
    const json = checkJson(text, req);
    if (!json.accept) return json;
  }
  if (text.length <= HEDGE_MAX_CHARS && HEDGE_PATTERN.test(text)) return reject("uncertain answer");
  return ACCEPT;
}
