// Local estimate of a request's input tokens, for routing and context-window
// checks before any vendor is called. Text is counted with a real BPE
// (OpenAI's o200k); other vendors' tokenizers differ by roughly ±20%, which is
// fine for an estimate. The approximations:
//  - each image counts a fixed IMAGE_TOKENS: its size is unknown without
//    decoding, and the cost differs by vendor (Anthropic ≈ w·h/750 capped near
//    1,600; OpenAI high detail 765 for 1024²; Gemini 258), so the largest common
//    figure keeps context checks on the safe side;
//  - tool definitions count as their name, description and JSON schema text,
//    tool calls as their name and JSON arguments;
//  - every message and tool adds a small framing overhead, as chat templates do;
//  - JSON nested deeper than MAX_JSON_DEPTH is counted down to that depth (client-json.ts):
//    an estimate never refuses, and never walks deeper.
// The tokenizer's own merge cache is size-bounded; nothing here memoises.
//
// The o200k tables take ~0.4 s and ~90 MB to load, so they are loaded on first
// use rather than at start-up. The request path never needs them: budget
// reservations use the approximation below (see estimateCost in
// src/core/router/answer.ts).

import type { ChatRequest, ContentBlock, ToolDefinition } from "./ir.ts";
import { estimateText } from "./client-json.ts";

export const IMAGE_TOKENS = 1_600;
/** Role and separators around each message (OpenAI documents 3). */
const MESSAGE_OVERHEAD = 3;
/** Priming of the assistant's reply. */
const REPLY_OVERHEAD = 3;
/** Framing of a tool definition beyond its text. */
const TOOL_OVERHEAD = 8;

// Special-token markers in user text are plain text to the vendor; counting must not throw on them.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type CountTokens = (text: string, opts: typeof PLAIN_TEXT) => number;
let countTokens: CountTokens | undefined;

function tokenizer(): CountTokens {
  countTokens ??= (require("gpt-tokenizer/encoding/o200k_base") as { countTokens: CountTokens }).countTokens;
  return countTokens;
}

export function estimateTextTokens(text: string): number {
  return text ? tokenizer()(text, PLAIN_TEXT) : 0;
}

/**
 * The documented approximation for vendors whose tokenizer we do not ship
 * (Anthropic, Google, xAI, open models): 3.5 characters per token, on the
 * high side of their English averages so budget reservations err on the safe
 * side. It also keeps the 64 MB o200k tables out of memory for them.
 */
export function approxTextTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}

type TextCounter = (text: string) => number;

/** Input tokens of a request: o200k BPE by default (OpenAI-family models). */
export function estimateTokens(req: ChatRequest, count: TextCounter = estimateTextTokens): number {
  const blockTokens = (block: ContentBlock): number => blockTokensWith(block, count, blockTokens);
  let total = REPLY_OVERHEAD;
  if (req.system?.length) total += MESSAGE_OVERHEAD + sum(req.system, blockTokens);
  for (const message of req.messages) total += MESSAGE_OVERHEAD + sum(message.content, blockTokens);
  total += sum(req.tools ?? [], (t) => toolTokens(t, count));
  if (req.responseFormat?.type === "json_schema") total += count(estimateText(req.responseFormat.schema));
  return total;
}

/** BPE for OpenAI's own models, the approximation for every other provider. */
export function estimateTokensFor(req: ChatRequest, provider: string): number {
  return estimateTokens(req, provider === "openai" ? estimateTextTokens : approxTextTokens);
}

function blockTokensWith(block: ContentBlock, count: TextCounter, blockTokens: (b: ContentBlock) => number): number {
  switch (block.type) {
    case "text":
    case "thinking":
      return count(block.text);
    case "image":
      return IMAGE_TOKENS;
    case "tool_use":
      return count(block.name) + count(estimateText(block.input ?? {}));
    case "tool_result":
      return sum(block.content, blockTokens);
    case "redacted_thinking":
      // Encrypted and opaque; BPE over base64 is wasted work, ~4 characters per token is as good.
      return Math.ceil(block.data.length / 4);
    case "opaque":
      return count(estimateText(block.value));
  }
}

function toolTokens(tool: ToolDefinition, count: TextCounter): number {
  return (
    TOOL_OVERHEAD +
    count(tool.name) +
    count(tool.description ?? "") +
    count(estimateText(tool.parameters))
  );
}

function sum<T>(items: readonly T[], tokens: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += tokens(item);
  return total;
}
