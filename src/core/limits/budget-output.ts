// How much a request may cost, and the max_tokens a budget affords it (issue 34, item 6).
//
// A run's reservation covers its input (the 3.5-characters-a-token approximation, which errs
// high) and its whole possible output: the request's max_tokens, or the model's real maximum
// output when it sets none. Only a vendor billing past that can spend more than was reserved.
// When that reservation does not fit in what the budget has left, Relay reserves what is left
// instead and caps the request's max_tokens to the output it pays for (at least MIN_CAPPED_OUTPUT
// tokens, else the request is refused).

import type { ModelInfo } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import type { ChatRequest, Usage } from "../ir.ts";

/** A cap below this is refused instead: an answer cut that short is worth nothing. */
export const MIN_CAPPED_OUTPUT = 256;
/** The ceiling for a model whose maximum output nobody lists, as the Anthropic encoder's default max_tokens. */
export const UNLISTED_MAX_OUTPUT = 4096;

export interface OutputPlan {
  /** Output tokens the request can be billed for: its max_tokens (with a thinking budget Anthropic adds), or the model's maximum. */
  ceiling: number;
  /** Neither the request nor the catalog bounds a priced output: Relay must set max_tokens itself. */
  unbounded: boolean;
  /** The smallest max_tokens a cap may set. */
  floor: number;
  inputUsd: number;
  /** USD per output token at this input (prices are linear in output). */
  outputUsd: number;
}

export function outputPlan(model: ModelInfo, ir: ChatRequest, inputTokens: number): OutputPlan {
  const thinking = ir.reasoning?.budgetTokens;
  let ceiling = ir.maxTokens ?? model.maxOutput ?? UNLISTED_MAX_OUTPUT;
  // Anthropic's encoder raises a max_tokens at or below the thinking budget to budget + max_tokens.
  if (thinking !== undefined && ir.maxTokens !== undefined && ir.maxTokens <= thinking) ceiling += thinking;
  const inputUsd = costOf(model, tokens(inputTokens, 0));
  const outputUsd = (costOf(model, tokens(inputTokens, ceiling)) - inputUsd) / ceiling;
  // A cap at or below the thinking budget is one Anthropic refuses.
  const floor = Math.min(ceiling, Math.max(MIN_CAPPED_OUTPUT, thinking === undefined ? 0 : thinking + 1));
  // A free output (a local model) needs no bound, whatever its length.
  const unbounded = ir.maxTokens === undefined && model.maxOutput === undefined && outputUsd > 0;
  return { ceiling, unbounded, floor, inputUsd, outputUsd };
}

/** The reservation for the whole possible output. */
export const fullCost = (plan: OutputPlan): number => plan.inputUsd + plan.ceiling * plan.outputUsd;

/** The reservation below which a cap is refused. */
export const floorCost = (plan: OutputPlan): number => plan.inputUsd + plan.floor * plan.outputUsd;

/** The output tokens `reservedUsd` pays for, at most the ceiling: the cap it affords. */
export const affordableOutput = (plan: OutputPlan, reservedUsd: number): number => Math.min(plan.ceiling, paidOutput(plan, reservedUsd));

/** The output tokens `usd` pays for beside the input (unbounded when output is free). */
export function paidOutput(plan: OutputPlan, usd: number): number {
  if (plan.outputUsd <= 0) return Number.POSITIVE_INFINITY;
  let tokens = Math.floor((usd - plan.inputUsd) / plan.outputUsd);
  // Float rounding can leave the last token a hair over.
  while (tokens > 0 && outputCostOf(plan, tokens) > usd) tokens--;
  return Math.max(0, tokens);
}

/** USD for the input and `tokens` of output. */
export const outputCostOf = (plan: OutputPlan, tokens: number): number => plan.inputUsd + tokens * plan.outputUsd;

/** One Usage reused for every estimate (costOf is synchronous and keeps nothing): no allocation per request. */
const scratch: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
function tokens(inputTokens: number, outputTokens: number): Usage {
  scratch.inputTokens = inputTokens;
  scratch.outputTokens = outputTokens;
  return scratch;
}
