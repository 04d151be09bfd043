// How a benchmark's answers are scored and its results summed up (README "Model benchmarks").
//
// A prompt with an expected answer scores 1 or 0 by its match rule; one without is not scored:
//   exact     the answer, without leading and trailing white space, is the expected text;
//   contains  the answer contains the expected text, in any letter case;
//   regex     the expected text, a JavaScript regular expression, matches the answer.
// A call that failed scores 0 when its prompt has an expected answer: no answer is a wrong one.
//
// A summary of results: success rate over every call; latency (mean, p50, p95 by nearest rank) over
// the calls that succeeded, a failure's time saying little about the model; cost per call over every
// call (a failure a vendor billed counts); score, the mean over the scored calls (null when none was).
import type { BenchmarkPrompt, BenchmarkResult } from "../../store/benchmarks/types.ts";

/** 1 or 0 for a prompt with an expected answer (the answer undefined when the call failed), else null. */
export function scoreOf(prompt: BenchmarkPrompt, answer: string | undefined): number | null {
  if (prompt.expected === undefined) return null;
  if (answer === undefined) return 0;
  const expected = prompt.expected;
  switch (prompt.match ?? "contains") {
    case "exact":
      return answer.trim() === expected.trim() ? 1 : 0;
    case "contains":
      return answer.toLowerCase().includes(expected.toLowerCase()) ? 1 : 0;
    case "regex":
      return new RegExp(expected).test(answer) ? 1 : 0;
  }
}

export interface Summary {
  calls: number;
  successes: number;
  success_rate: number;
  latency_ms: { mean: number | null; p50: number | null; p95: number | null };
  cost_usd: { total: number; per_call: number };
  /** The mean score over the calls whose prompt has an expected answer; null when there is none. */
  score: number | null;
  scored: number;
}

type Summed = Pick<BenchmarkResult, "success" | "latency_ms" | "cost_usd" | "score">;

export function summarize(results: readonly Summed[]): Summary {
  const calls = results.length;
  const ok = results.filter((r) => r.success);
  const latencies = ok.map((r) => r.latency_ms).sort((a, b) => a - b);
  const total = results.reduce((s, r) => s + r.cost_usd, 0);
  const scores = results.flatMap((r) => (r.score === null ? [] : [r.score]));
  return {
    calls,
    successes: ok.length,
    success_rate: calls === 0 ? 0 : ok.length / calls,
    latency_ms: {
      mean: latencies.length === 0 ? null : latencies.reduce((s, v) => s + v, 0) / latencies.length,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
    },
    cost_usd: { total, per_call: calls === 0 ? 0 : total / calls },
    score: scores.length === 0 ? null : scores.reduce((s, v) => s + v, 0) / scores.length,
    scored: scores.length,
  };
}

/** The nearest-rank percentile of sorted values: the smallest value with at least p % of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
