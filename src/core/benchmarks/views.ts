// Benchmark runs and results as the hosted API answers them (README "Model benchmarks"): times in ISO 8601,
// a run with its progress, its per-model summaries (scoring.ts) and its results when read alone.
import type { BenchmarkResult, BenchmarkRun } from "../../store/benchmarks/types.ts";
import { summarize, type Summary } from "./scoring.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function runView(r: BenchmarkRun) {
  return {
    id: r.id,
    object: "benchmark_run" as const,
    status: r.status,
    reason: r.reason,
    models: r.models,
    prompt_set: { name: r.prompt_set.name, shipped: r.prompt_set.shipped, prompts: r.prompt_set.prompts.length },
    max_tokens: r.max_tokens,
    spend_cap_usd: r.spend_cap_usd,
    spent_usd: r.spent_usd,
    calls_planned: r.models.length * r.prompt_set.prompts.length,
    created_at: iso(r.created_at),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
  };
}

export function resultView(r: BenchmarkResult) {
  return {
    model: r.model,
    prompt_id: r.prompt_id,
    request_id: r.request_id,
    at: iso(r.at),
    success: r.success,
    status: r.status,
    error: r.error,
    latency_ms: r.latency_ms,
    cost_usd: r.cost_usd,
    tokens: { input: r.input_tokens, output: r.output_tokens },
    score: r.score,
    output: r.output,
  };
}

/** Each of the run's models with the summary of its results, in the run's order. */
export function modelSummaries(models: readonly string[], results: readonly BenchmarkResult[]): (Summary & { model: string })[] {
  return models.map((model) => ({ model, ...summarize(results.filter((r) => r.model === model)) }));
}

/** A run read alone: its results in the set's prompt order, model by model. */
export function runDetail(r: BenchmarkRun, results: readonly BenchmarkResult[]) {
  const order = new Map(r.prompt_set.prompts.map((p, i) => [p.id, i]));
  const sorted = [...results].sort((a, b) => r.models.indexOf(a.model) - r.models.indexOf(b.model) || order.get(a.prompt_id)! - order.get(b.prompt_id)!);
  return { ...runView(r), calls_done: results.length, summary: modelSummaries(r.models, results), results: sorted.map(resultView) };
}
