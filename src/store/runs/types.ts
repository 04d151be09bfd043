// The run log: every request's run record, and the read models' queries over them.
import type { RunRecord } from "../../core/run-record.ts";

export interface RunQuery {
  limit: number;
  offset: number;
  since?: number;
  model?: string;
  provider?: string;
  status?: number;
  sessionKey?: string;
}

export interface RunTotals {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  fallbacks: number;
}

export interface ModelTotals extends RunTotals {
  model: string;
  provider: string;
}

/** Runs of one time bucket (dashboard charts). */
export interface SeriesBucket extends RunTotals {
  /** Bucket start, ms since the epoch. */
  ts: number;
  latencyAvgMs: number;
  latencyMaxMs: number;
}

export interface RunLog {
  /** Insert a batch atomically; records whose id exists are ignored. */
  insertRuns(records: RunRecord[]): Promise<void>;
  listRuns(q: RunQuery): Promise<{ runs: RunRecord[]; total: number }>;
  getRun(id: string): Promise<RunRecord | undefined>;
  totals(since: number): Promise<RunTotals>;
  totalsByModel(since: number): Promise<ModelTotals[]>;
  /** Latencies (ms) of runs since `since`, for percentiles; at most `max` newest. */
  latencies(since: number, max: number): Promise<number[]>;
  /**
   * Runs since `since` grouped into buckets of `bucketMs` starting at `since`,
   * oldest first; buckets without runs are left out.
   */
  series(since: number, bucketMs: number): Promise<SeriesBucket[]>;
  /** Delete runs older than `before`; returns how many. */
  prune(before: number): Promise<number>;
  /**
   * Starts now what the first insertRuns would start (SQLite's writer thread), so a request can
   * have it ready by the time its record is written; later calls do nothing.
   */
  prepareWrites?(): void;
}
