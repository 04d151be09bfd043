import { type StopReason, type Usage, emptyUsage } from "../../ir.ts";
import { type Json, isRecord } from "./read.ts";

const count = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

/**
 * The usage counters present in `v`. Streams send usage twice (message_start,
 * then cumulative totals in message_delta, where newer API versions add the
 * input and cache counters), so absent counters must stay distinguishable.
 */
export function decodeUsagePatch(v: unknown): Partial<Usage> {
  if (!isRecord(v)) return {};
  // Field by field rather than through Object.entries of a temporary object: every Anthropic answer
  // passes here twice when streamed, and the entries walk was ~2 % of a translated stream's CPU.
  const patch: Partial<Usage> = {};
  const input = count(v.input_tokens);
  if (input !== undefined) patch.inputTokens = input;
  const output = count(v.output_tokens);
  if (output !== undefined) patch.outputTokens = output;
  const cacheRead = count(v.cache_read_input_tokens);
  if (cacheRead !== undefined) patch.cacheReadTokens = cacheRead;
  const cacheWrite = count(v.cache_creation_input_tokens);
  if (cacheWrite !== undefined) patch.cacheWriteTokens = cacheWrite;
  const reasoning = isRecord(v.output_tokens_details) ? count(v.output_tokens_details.thinking_tokens) : undefined;
  if (reasoning !== undefined) patch.reasoningTokens = reasoning;
  return patch;
}

export const decodeUsage = (v: unknown): Usage => ({ ...emptyUsage(), ...decodeUsagePatch(v) });

export function encodeUsage(u: Partial<Usage>): Json {
  return {
    input_tokens: u.inputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    ...(u.reasoningTokens === undefined
      ? {}
      : { output_tokens_details: { thinking_tokens: u.reasoningTokens } }),
  };
}

const NATIVE_STOP_REASONS: readonly string[] = [
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
];

export function decodeStopReason(v: unknown): StopReason {
  if (typeof v === "string" && NATIVE_STOP_REASONS.includes(v)) return v as StopReason;
  // The context window ran out: to a client that is the same as hitting max_tokens.
  if (v === "model_context_window_exceeded") return "max_tokens";
  return "end_turn";
}

export function encodeStopReason(r: StopReason): string {
  if (r === "content_filter") return "refusal";
  if (r === "error") return "end_turn";
  return r;
}
