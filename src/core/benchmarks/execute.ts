// One benchmark run's calls (README "Model benchmarks"): every model on every prompt not recorded yet (a
// resumed run skips what it did before its restart), prompt by prompt so that a run the spend cap
// stops has the same prompts for each model, CONCURRENCY calls at a time. Each call goes through the
// router, as the team (its request log, budgets and retention) with its stored provider keys, so a
// benchmark call is routed, retried and logged like any other; its outcome is recorded at once.
import type { BenchmarkPrompt, BenchmarkResult, BenchmarkRun, BenchmarkStore } from "../../store/benchmarks/types.ts";
import type { CredentialStore } from "../../store/credentials/types.ts";
import type { Clock } from "../limits/clock.ts";
import type { ChatRequest } from "../ir.ts";
import { newRequestId } from "../ids.ts";
import type { ProviderKeys } from "../router/call.ts";
import type { RouterDeps } from "../router/deps.ts";
import type { RouteResult } from "../router/result.ts";
import { route } from "../router/route.ts";
import { type CredentialDeps, teamCredentials } from "../tenancy/credentials.ts";
import { scoreOf } from "./scoring.ts";
import { estimateUsd, SpendGate } from "./spend.ts";

/** Calls of one run in flight at once: a benchmark must not crowd out the team's own traffic. */
export const CONCURRENCY = 2;
/** The metadata key under which a benchmark call's run names its benchmark (internal: svc_*, not shown in the team's log). */
export const BENCHMARK_ID_KEY = "svc_benchmark_id";
const OUTPUT_CHARS = 2_000;

export type BenchmarkDeps = RouterDeps &
  CredentialDeps & { readonly clock: Clock; readonly store: { readonly benchmarks: BenchmarkStore; readonly credentials: CredentialStore } };

/** How a run's execution ended: every call made, the cap reached, or cut short (the runner stopped, or lost the run). */
export type Outcome = { kind: "done" } | { kind: "stopped"; reason: string } | { kind: "interrupted" };

export async function executeRun(deps: BenchmarkDeps, run: BenchmarkRun, signal: AbortSignal): Promise<Outcome> {
  const recorded = await deps.store.benchmarks.runResults(run.id);
  const done = new Set(recorded.map((r) => `${r.model}\u0000${r.prompt_id}`));
  const pending = run.prompt_set.prompts.flatMap((p) => run.models.filter((m) => !done.has(`${m}\u0000${p.id}`)).map((model) => ({ model, prompt: p })));
  const credentials = await teamCredentials(deps, run.team_id);
  const gate = new SpendGate(run.spend_cap_usd, recorded.reduce((s, r) => s + r.cost_usd, 0));
  let stopped: string | undefined;
  /** A worker's error (the store failing) ends the others too before the run is failed. */
  let failure: { error: unknown } | undefined;

  const worker = async () => {
    try {
      for (let next = pending.shift(); next && !stopped && !failure && !signal.aborted; next = pending.shift()) {
        const ir = requestOf(next.model, next.prompt, run.max_tokens);
        const estimate = estimateUsd(deps.catalog, ir);
        if (!(await gate.admit(estimate))) {
          stopped ??= gate.refusal(estimate);
          return;
        }
        let result: BenchmarkResult | undefined;
        try {
          result = await callOnce(deps, run, next.prompt, ir, credentials, signal);
        } finally {
          // Settled whatever happened: the other worker may be waiting on it.
          gate.settle(estimate, result?.cost_usd ?? 0);
        }
        if (result) await deps.store.benchmarks.insertResult(result);
      }
    } catch (error) {
      failure ??= { error };
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (failure) throw failure.error;
  if (signal.aborted) return { kind: "interrupted" };
  return stopped ? { kind: "stopped", reason: stopped } : { kind: "done" };
}

function requestOf(model: string, prompt: BenchmarkPrompt, maxTokens: number): ChatRequest {
  const ir: ChatRequest = { model, messages: [{ role: "user", content: [{ type: "text", text: prompt.prompt }] }], stream: false, maxTokens };
  if (prompt.system !== undefined) ir.system = [{ type: "text", text: prompt.system }];
  return ir;
}

/** One call and its outcome; undefined when the run was interrupted meanwhile (the call is made again on resume). */
async function callOnce(deps: BenchmarkDeps, run: BenchmarkRun, prompt: BenchmarkPrompt, ir: ChatRequest, credentials: ProviderKeys | undefined, signal: AbortSignal): Promise<BenchmarkResult | undefined> {
  const id = newRequestId();
  const start = performance.now();
  const result = await route(deps, {
    format: "openai",
    request: ir,
    caller: { surface: "benchmark", team: run.team_id, credentials, metadata: { [BENCHMARK_ID_KEY]: run.id } },
    signal,
    id,
    start,
  });
  if (signal.aborted) return undefined;
  return resultOf(run, prompt, ir.model, id, result, performance.now() - start, deps.clock.now());
}

function resultOf(run: BenchmarkRun, prompt: BenchmarkPrompt, model: string, id: string, result: RouteResult, elapsedMs: number, at: number): BenchmarkResult {
  if (result.kind === "stream") throw new Error("a benchmark call asked for a whole answer and was given a stream");
  const record = result.record;
  const answer = result.kind === "answer" ? result.response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("").slice(0, OUTPUT_CHARS) : undefined;
  return {
    run_id: run.id,
    team_id: run.team_id,
    model,
    prompt_id: prompt.id,
    request_id: id,
    at,
    success: result.kind === "answer",
    status: result.kind === "answer" ? 200 : result.error.status,
    error: result.kind === "answer" ? null : `${result.error.code}: ${result.error.message}`,
    latency_ms: record?.latencyMs ?? elapsedMs,
    cost_usd: record?.costUsd ?? 0,
    input_tokens: record?.inputTokens ?? 0,
    output_tokens: record?.outputTokens ?? 0,
    score: scoreOf(prompt, answer),
    output: answer ?? "",
  };
}
