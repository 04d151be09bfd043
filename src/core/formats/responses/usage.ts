// Responses usage ↔ IR usage. `input_tokens` include the cached ones and `output_tokens` the
// reasoning ones; the IR's inputTokens exclude cached tokens (Anthropic style).
import type { Usage } from "../../ir.ts";
import { emptyUsage, promptTokens } from "../../ir.ts";
import { isObject, numberOr, type Json } from "../openai/shape.ts";

export function decodeUsage(raw: unknown): Usage {
  if (!isObject(raw)) return emptyUsage();
  const input = numberOr(raw.input_tokens, 0);
  const inputDetails = isObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const cached = Math.min(input, numberOr(inputDetails.cached_tokens, 0));
  const usage: Usage = {
    inputTokens: input - cached,
    outputTokens: numberOr(raw.output_tokens, 0),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  if (typeof outputDetails.reasoning_tokens === "number") usage.reasoningTokens = outputDetails.reasoning_tokens;
  return usage;
}

export function encodeUsage(u: Usage): Json {
  const input = promptTokens(u);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: input + u.outputTokens,
  };
}
