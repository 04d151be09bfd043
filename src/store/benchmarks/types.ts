// Benchmark runs of the hosted API (issue 38 item 5, src/core/benchmarks/): a run is a row the runner
// claims under a lease, so a run survives a restart (the next process resumes it) and instances
// sharing a database never run it twice at once; each call's outcome is a result row, written once.

export type BenchmarkStatus = "queued" | "running" | "succeeded" | "failed" | "stopped";

/** One prompt of a set; `expected` and `match` when the set scores its answers (src/core/benchmarks/scoring.ts). */
export interface BenchmarkPrompt {
  id: string;
  prompt: string;
  system?: string;
  expected?: string;
  match?: "exact" | "contains" | "regex";
}

export interface PromptSet {
  name: string;
  /** True for a set shipped with Relay, false for one the team uploaded with the run. */
  shipped: boolean;
  prompts: BenchmarkPrompt[];
}

export interface BenchmarkRun {
  /** `bench_…` */
  id: string;
  team_id: string;
  status: BenchmarkStatus;
  /** Why the run stopped or failed; null otherwise. */
  reason: string | null;
  models: string[];
  /** The whole set, kept with the run so that resuming it needs nothing else. */
  prompt_set: PromptSet;
  max_tokens: number;
  spend_cap_usd: number;
  /** What the run's calls cost so far (the sum of its results' cost). */
  spent_usd: number;
  /** ms since the epoch. */
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** While running: when the runner's claim runs out; another instance may take the run over after it. */
  lease_until: number | null;
}

export interface BenchmarkResult {
  run_id: string;
  team_id: string;
  model: string;
  prompt_id: string;
  /** The call's run id in the team's request log (`req_…`). */
  request_id: string;
  /** ms since the epoch, when the call ended. */
  at: number;
  success: boolean;
  /** The HTTP status the call ended with (200, a vendor's error status, or Relay's refusal). */
  status: number;
  error: string | null;
  latency_ms: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  /** 1 or 0 when the prompt has an expected answer, else null. */
  score: number | null;
  /** The answer's text, cut to its first 2,000 characters. */
  output: string;
}

/** A result with its run's set name (comparison and history read them so). */
export type SetResult = BenchmarkResult & { set_name: string };

export interface BenchmarkStore {
  insertRun(run: BenchmarkRun): Promise<void>;
  getRun(id: string): Promise<BenchmarkRun | undefined>;
  /** A team's runs, newest first. */
  listRuns(teamId: string, limit: number, offset: number): Promise<{ runs: BenchmarkRun[]; total: number }>;
  /** Runs a runner may take at `now`: queued ones, and running ones whose lease ran out; oldest first. */
  dueRuns(now: number, limit: number): Promise<BenchmarkRun[]>;
  /**
   * Takes a due run (a compare-and-set on its status and lease, so one instance gets it): running,
   * leased until `until`, started_at kept from an earlier start, its spend summed afresh from its
   * results. False when someone else took it.
   */
  claimRun(id: string, now: number, until: number): Promise<boolean>;
  /** Extends a running run's lease; false when the run is no longer running. */
  renewLease(id: string, until: number): Promise<boolean>;
  /** A running run back to queued (its runner stops), for the next runner to resume at once. */
  releaseRun(id: string): Promise<void>;
  finishRun(id: string, status: "succeeded" | "failed" | "stopped", reason: string | null, at: number): Promise<void>;
  /** Records a call's outcome once and adds its cost to the run's spend; false when it was recorded already. */
  insertResult(r: BenchmarkResult): Promise<boolean>;
  /** A run's results, by model then prompt id. */
  runResults(runId: string): Promise<BenchmarkResult[]>;
  /** A team's latest `limit` results of `model` (of runs of the set `setName` when given), newest first. */
  modelResults(teamId: string, model: string, setName: string | undefined, limit: number): Promise<SetResult[]>;
  /** A page of the team's runs that called `model`, newest first, and how many there are. */
  modelRuns(teamId: string, model: string, limit: number, offset: number): Promise<{ runs: BenchmarkRun[]; total: number }>;
  /** The results of `model` in the runs `runIds`. */
  resultsOf(runIds: string[], model: string): Promise<BenchmarkResult[]>;
}
