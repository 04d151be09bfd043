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
  const patch: Partial<Usage> = {};
  const fields = {
    inputTokens: count(v.input_tokens),
    outputTokens: count(v.output_tokens),
    cacheReadTokens: count(v.cache_read_input_tokens),
    cacheWriteTokens: count(v.cache_creation_input_tokens),
    reasoningTokens: isRecord(v.output_tokens_details)
      ? count(v.output_tokens_details.thinking_tokens)
      : undefined,
  };
  for (const [key, value] of Object.entries(fields) as Array<[keyof Usage, number | undefined]>) {
    if (value !== undefined) patch[key] = value;
  }
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
