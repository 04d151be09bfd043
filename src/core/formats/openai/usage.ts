// OpenAI usage ↔ IR usage. OpenAI's prompt_tokens include cached tokens; the
// IR's inputTokens exclude them (Anthropic style).
import type { Usage } from "../../ir.ts";
import { emptyUsage, promptTokens } from "../../ir.ts";
import { isObject, numberOr, type Json } from "./shape.ts";

export function decodeUsage(raw: unknown): Usage {
  if (!isObject(raw)) return emptyUsage();
  const prompt = numberOr(raw.prompt_tokens, 0);
  const completion = numberOr(raw.completion_tokens, 0);
  const promptDetails = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  // DeepSeek reports its cache hits as `prompt_cache_hit_tokens` (and lately also the OpenAI field).
  const cached = Math.min(
    prompt,
    Math.max(numberOr(promptDetails.cached_tokens, 0), numberOr(raw.prompt_cache_hit_tokens, 0)),
  );
  const reasoning = completionDetails.reasoning_tokens;
  // xAI leaves reasoning out of completion_tokens but counts it in total_tokens;
  // the IR's outputTokens always include reasoning.
  const reasoningOutside =
    typeof reasoning === "number" && reasoning > 0 && raw.total_tokens === prompt + completion + reasoning;
  const usage: Usage = {
    inputTokens: prompt - cached,
    outputTokens: reasoningOutside ? completion + reasoning : completion,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  if (typeof reasoning === "number") usage.reasoningTokens = reasoning;
  return usage;
}

export function encodeUsage(u: Usage): Json {
  const prompt = promptTokens(u);
  const usage: Json = {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens },
  };
  if (u.reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return usage;
}
