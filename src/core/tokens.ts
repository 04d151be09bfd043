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
//  - every message and tool adds a small framing overhead, as chat templates do.
// The tokenizer's own merge cache is size-bounded; nothing here memoises.
//
// The o200k tables take ~0.4 s and ~90 MB to load, so they are loaded on first
// use rather than at start-up (most requests never need an exact count).

import type { ChatRequest, ContentBlock, ToolDefinition } from "./ir.ts";

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

export function estimateTokens(req: ChatRequest): number {
  let total = REPLY_OVERHEAD;
  if (req.system?.length) total += MESSAGE_OVERHEAD + sum(req.system, blockTokens);
  for (const message of req.messages) total += MESSAGE_OVERHEAD + sum(message.content, blockTokens);
  total += sum(req.tools ?? [], toolTokens);
  if (req.responseFormat?.type === "json_schema") total += estimateTextTokens(JSON.stringify(req.responseFormat.schema));
  return total;
}

function blockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
    case "thinking":
      return estimateTextTokens(block.text);
    case "image":
      return IMAGE_TOKENS;
    case "tool_use":
      return estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.input ?? {}));
    case "tool_result":
      return sum(block.content, blockTokens);
    case "redacted_thinking":
      // Encrypted and opaque; BPE over base64 is wasted work, ~4 characters per token is as good.
      return Math.ceil(block.data.length / 4);
    case "opaque":
      return estimateTextTokens(JSON.stringify(block.value) ?? "");
  }
}

function toolTokens(tool: ToolDefinition): number {
  return (
    TOOL_OVERHEAD +
    estimateTextTokens(tool.name) +
    estimateTextTokens(tool.description ?? "") +
    estimateTextTokens(JSON.stringify(tool.parameters))
  );
}

function sum<T>(items: readonly T[], tokens: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += tokens(item);
  return total;
}
