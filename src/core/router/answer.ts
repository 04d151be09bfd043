// An answer that arrived whole: priced and encoded in the call's format, then the result a surface
// renders; and the pre-call estimate a stream's facts carry.
import type { ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import { codecFor } from "../formats/index.ts";
import type { ChatRequest, ChatResponse } from "../ir.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import type { RouterDeps } from "./deps.ts";
import { factsOf, type RouteAnswer } from "./result.ts";
import type { Run } from "./run.ts";

/** A vendor's answer that arrived whole and can be given to the client. */
export interface Answer {
  res: ChatResponse;
  model: ModelInfo;
  provider: ProviderPlugin;
  /** The vendor's own text, when it can go to the client as it is. */
  text?: string;
}

/** An answer that arrived whole, priced (run.costUsd), in the call's format. */
export function pricedAnswer(deps: RouterDeps, run: Run, answer: Answer): string {
  const { res, model } = answer;
  run.usage = res.usage;
  warnOnMismatch(deps, run, model, res.model);
  run.costUsd = costOf(model, res.usage) + run.rejectedCost;
  return answer.text ?? JSON.stringify(codecFor(run.call.format).encodeResponse(res, { model: res.model || model.id, tools: run.ir.tools }));
}

/** The result of a run settled with a whole answer, priced by pricedAnswer. */
export function answerResult(run: Run, answer: Answer, body: string): RouteAnswer {
  return {
    kind: "answer",
    format: run.call.format,
    contentType: "application/json",
    body,
    response: answer.res,
    usage: answer.res.usage,
    facts: factsOf(run, answer.model, answer.provider, run.costUsd!),
    record: run.record!,
  };
}

export function estimateCost(run: Run, model: ModelInfo, ir: ChatRequest): number {
  if (run.estimate?.model === model) return run.estimate.usd;
  // A typical answer, not the (often huge) max_tokens ceiling a budget reserves (budget-run.ts).
  // Input is the 3.5-characters-per-token approximation for every vendor: it errs high, and a BPE
  // count would cost ~6 µs per request plus 64 MB of tables for a figure that is settled anyway.
  const output = Math.min(ir.maxTokens ?? 1024, 4096);
  const usd = costOf(model, { inputTokens: estimateTokens(ir, approxTextTokens), outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 });
  run.estimate = { model, usd };
  return usd;
}

export function warnOnMismatch(deps: RouterDeps, run: Run, model: ModelInfo, reported: string | undefined): void {
  if (!reported || reported.startsWith(model.id) || model.id.startsWith(reported)) return;
  run.events.push({ type: "mismatch", model: reported, provider: model.provider, reason: `asked ${model.id}` });
  deps.log.warn("model mismatch", { requestId: run.call.id, routedModel: model.id, responseModel: reported });
}
