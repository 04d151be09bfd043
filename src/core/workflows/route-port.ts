// The engine's port over route(): a step's call as a RouteCall (the request already decoded, the
// step's signal, who is asking), its result as the answer's text, usage and cost. Local mode hands in
// createRouter's route (src/portable.ts); cloud mode route(deps, ·) with the team and its stored
// credentials on the caller.
import type { Caller, RouteCall } from "../router/call.ts";
import type { RouteResult } from "../router/result.ts";
import { promptTokens } from "../ir.ts";
import type { CallOutcome, StepCaller } from "./types.ts";

export type RouteFn = (call: RouteCall) => Promise<RouteResult>;

/** `caller`: the surface ("workflow" when absent), team and credentials each step's call is made for. */
export function routeCaller(route: RouteFn, caller: Partial<Caller> = {}): StepCaller {
  return async (step) => {
    const metadata = { ...caller.metadata, ...step.metadata, workflow: step.workflowName, step: step.stepName };
    const result = await route({ format: "openai", request: step.request, signal: step.signal, caller: { surface: "workflow", ...caller, metadata } });
    return outcomeOf(result);
  };
}

function outcomeOf(result: RouteResult): CallOutcome {
  if (result.kind === "error") return { kind: "error", error: { status: result.error.status, code: result.error.code, message: result.error.message } };
  // A step asks for a whole answer; a stream is a port's misuse, refused rather than read.
  if (result.kind === "stream") return { kind: "error", error: { status: 500, code: "unexpected_stream", message: "route() answered a workflow step with a stream" } };
  const text = result.response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  return {
    kind: "answer",
    text,
    model: `${result.facts.provider}:${result.facts.routedModel}`,
    inputTokens: promptTokens(result.usage),
    outputTokens: result.usage.outputTokens,
    costUsd: result.facts.costUsd,
  };
}
