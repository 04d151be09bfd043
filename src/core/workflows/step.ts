// One step of a run: its prompts templated, its vendor call through the port with retries after
// retryable failures (classifyFailure: 5xx, 429, 408, no answer) and none after permanent ones
// (4xx), its answer parsed and checked against its schema with one repair call when it does not
// validate. Any abort of the run's signal ends the step at once, whether the port honours it or not.
import { classifyFailure } from "../limits/failure.ts";
import type { ChatRequest } from "../ir.ts";
import type { CompiledStep } from "./define.ts";
import { parseStructured, repairRequest, responseFormatOf } from "./structured.ts";
import { render, TemplateError } from "./template.ts";
import type { CallFailure, CallOutcome, StepCaller, StepResult } from "./types.ts";

export interface StepContext {
  workflowName: string;
  input: unknown;
  /** Results of the steps done so far: the templates read their outputs. */
  steps: Record<string, StepResult>;
  call: StepCaller;
  /** The run's: aborted on timeout, on the caller's abort, or when another step failed. */
  signal: AbortSignal;
}

const DEFAULT_BACKOFF_MS = 1000;
/** The router's own refusals that a call moments later cannot fix, though their status is a 5xx or 429 (a budget refills by the hour or day). */
const PERMANENT_CODES = new Set(["missing_api_key", "internal_error", "strategy_error", "router_closed", "unexpected_stream", "budget_exceeded"]);

/** Why a step failed: `cause` is the vendor's or the router's error, or what the answer lacked. */
export class StepFailure extends Error {
  override name = "StepFailure";
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

export const isRetryable = (f: CallFailure): boolean => classifyFailure({ status: f.status }).retryable && !PERMANENT_CODES.has(f.code);

/** The step's result: completed, failed (its error set) or cancelled (the run's signal aborted). */
export async function runStep(step: CompiledStep, ctx: StepContext): Promise<StepResult> {
  const started = Date.now();
  const result: StepResult = { status: "failed", model: step.model, tokens: { input: 0, output: 0, total: 0 }, cost: 0, latency: 0, retries: 0, repaired: false, prompt: { user: "" } };
  try {
    const request = requestOf(step, ctx, result);
    result.output = await answerOf(step, ctx, request, result);
    result.status = "completed";
  } catch (e) {
    if (ctx.signal.aborted) result.status = "cancelled";
    else if (e instanceof StepFailure) result.error = { message: e.message, cause: e.cause };
    else if (e instanceof TemplateError) result.error = { message: e.message, cause: { code: "template_error" } };
    else result.error = { message: `the step's call failed: ${(e as Error)?.message ?? String(e)}`, cause: e };
  }
  result.tokens.total = result.tokens.input + result.tokens.output;
  result.latency = Date.now() - started;
  return result;
}

/** The step's request, its prompts templated (kept on `result`). */
function requestOf(step: CompiledStep, ctx: StepContext, result: StepResult): ChatRequest {
  const data = { input: ctx.input, steps: ctx.steps };
  const system = step.systemPrompt === undefined ? undefined : render(step.systemPrompt, data);
  const user = step.userPrompt === undefined ? JSON.stringify(ctx.input ?? null) : render(step.userPrompt, data);
  result.prompt = system === undefined ? { user } : { system, user };
  return {
    model: step.routeModel,
    system: system === undefined ? undefined : [{ type: "text", text: system }],
    messages: [{ role: "user", content: [{ type: "text", text: user }] }],
    stream: false,
    responseFormat: step.schema === undefined ? undefined : responseFormatOf(step.name, step.schema),
  };
}

/** The step's output: the answer's text, or its JSON once it validates (after one repair call at most). */
async function answerOf(step: CompiledStep, ctx: StepContext, request: ChatRequest, result: StepResult): Promise<unknown> {
  const text = await callWithRetries(step, ctx, request, result);
  if (!step.validator) return text;
  const first = parseStructured(text, step.validator);
  if (first.ok) return first.value;
  result.repaired = true;
  const repaired = parseStructured(await callWithRetries(step, ctx, repairRequest(request, text, first.problem), result), step.validator);
  if (repaired.ok) return repaired.value;
  throw new StepFailure(`the answer does not validate against the step's schema after a repair: ${repaired.problem}`, { code: "schema_mismatch", problem: repaired.problem });
}

/** The answer's text; a retryable failure is retried up to retry.maxRetries times, waiting backoffMs, doubled each time. */
async function callWithRetries(step: CompiledStep, ctx: StepContext, request: ChatRequest, result: StepResult): Promise<string> {
  const maxRetries = step.retry?.maxRetries ?? 0;
  const backoff = step.retry?.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (let retry = 0; ; retry++) {
    const outcome = await untilAborted(ctx.call({ workflowName: ctx.workflowName, stepName: step.name, metadata: step.metadata, request, signal: ctx.signal }), ctx.signal);
    if (outcome.kind === "answer") {
      tally(result, outcome);
      return outcome.text;
    }
    const { error } = outcome;
    if (retry >= maxRetries || !isRetryable(error)) throw new StepFailure(`${error.code}: ${error.message}`, error);
    await sleep(backoff * 2 ** retry, ctx.signal);
    result.retries++;
  }
}

function tally(result: StepResult, answer: Extract<CallOutcome, { kind: "answer" }>): void {
  result.routedModel = answer.model;
  result.tokens.input += answer.inputTokens;
  result.tokens.output += answer.outputTokens;
  result.cost += answer.costUsd;
}

/** `work`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return untilAborted(
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    }),
    signal,
  );
}
