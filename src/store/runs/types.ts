// The run log: every request's run record, and the read models' queries over them.
import type { RunRecord } from "../../core/run-record.ts";

export interface RunQuery {
  limit: number;
  offset: number;
  since?: number;
  /** Runs that started at or before it (ms since the epoch). */
  until?: number;
  /** That hosted team's runs only. */
  teamId?: string;
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
  /** Totals of the runs since `since` (of `teamId` only, when given; up to `until` inclusive, when given). */
  totals(since: number, teamId?: string, until?: number): Promise<RunTotals>;
  totalsByModel(since: number, teamId?: string, until?: number): Promise<ModelTotals[]>;
  /** Latencies (ms) of runs since `since` (of `teamId` only, when given), for percentiles; at most `max` newest. */
  latencies(since: number, max: number, teamId?: string): Promise<number[]>;
  /**
   * Runs since `since` grouped into buckets of `bucketMs` starting at `since`,
   * oldest first; buckets without runs are left out. With `teamId`, that team's runs only.
   */
  series(since: number, bucketMs: number, teamId?: string): Promise<SeriesBucket[]>;
  /**
   * Delete runs older than `before`; returns how many. Without `team`, the runs of no team (the
   * proxy's telemetry.retentionDays); with it, that team's runs (its plan's retention:
   * src/core/tenancy/retention.ts).
   */
  prune(before: number, team?: string): Promise<number>;
  /**
   * Starts now what the first insertRuns would start (SQLite's writer thread), so a request can
   * have it ready by the time its record is written; later calls do nothing.
   */
  prepareWrites?(): void;
}
