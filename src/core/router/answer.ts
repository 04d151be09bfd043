// An answer to the client: a whole one priced and encoded in the client's format, and the headers
// every answer carries (x-svc-* routing facts, forwarded vendor headers, Relay's overhead).
import type { ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import { codecFor } from "../formats/index.ts";
import { headerValue } from "../header-value.ts";
import type { ChatRequest, ChatResponse } from "../ir.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import type { RouterDeps } from "./deps.ts";
import { overheadMs, type Run } from "./run.ts";

/** A vendor's answer that arrived whole and can be given to the client. */
export interface Answer {
  res: ChatResponse;
  model: ModelInfo;
  provider: ProviderPlugin;
  /** The vendor's own text, when it can go to the client as it is. */
  text?: string;
}

/** An answer that arrived whole, priced, in the client's format, with its headers. */
export function jsonAnswer(deps: RouterDeps, run: Run, answer: Answer): { body: string; headers: Record<string, string> } {
  const { res, model, provider } = answer;
  run.usage = res.usage;
  warnOnMismatch(deps, run, model, res.model);
  const cost = (run.costUsd = costOf(model, res.usage) + run.rejectedCost);
  const body = answer.text ?? JSON.stringify(codecFor(run.call.clientFormat).encodeResponse(res, { model: res.model || model.id }));
  return { body, headers: answerHeaders("application/json", run, model, provider, cost) };
}

/**
 * The answer's headers: its content type, then the x-svc-* routing headers and the forwarded vendor ones, in one object.
 * Every value made of client or plugin text goes through headerValue (percent-encoded beyond printable ASCII).
 */
export function answerHeaders(contentType: string, run: Run, model: ModelInfo, provider: ProviderPlugin, cost: number): Record<string, string> {
  const routing = run.routing;
  const h: Record<string, string> = {
    "content-type": contentType,
    "x-svc-request-id": run.call.requestId,
    "x-svc-requested-model": headerValue(run.requestedModel),
    "x-svc-routed-model": headerValue(model.id),
    "x-svc-provider": headerValue(provider.name),
    "x-svc-strategy": headerValue(routing.strategy),
    "x-svc-fallback-used": String(run.events.some((e) => e.type === "fallback")),
    "x-svc-attempts": String(run.attempts),
    "x-svc-estimated-cost": cost.toFixed(6),
    "x-svc-overhead-ms": overheadHeader(run),
  };
  if (routing.plan.tier) h["x-svc-complexity-tier"] = headerValue(routing.plan.tier);
  if (routing.plan.reasons.length) h["x-svc-routing-reasons"] = headerValue(routing.plan.reasons.join("; "));
  if (run.dropped.length) h["x-svc-dropped-params"] = headerValue(run.dropped.join(","));
  if (run.budget?.cap !== undefined) h["x-svc-max-tokens-capped"] = String(run.budget.cap);
  // Vendor headers (rate limits, request ids) never share a name with ours.
  for (const name in run.vendorHeaders) h[name] = run.vendorHeaders[name]!;
  return h;
}

export const overheadHeader = (run: Run): string => (run.loggedOverheadMs ?? overheadMs(run)).toFixed(2);

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
  deps.log.warn("model mismatch", { requestId: run.call.requestId, routedModel: model.id, responseModel: reported });
}
