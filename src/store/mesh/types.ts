// The mesh's reported outcomes (migration 15): anonymised routing outcomes per team, and the
// batches they came in, for idempotent ingestion (issue 38 items 4 and 6).
import type { MeshOutcome } from "../../core/mesh/outcome.ts";

export type BatchKind = "outcomes" | "logs";

/** Outcomes of one model, provider and bucket since a time. */
export interface OutcomeTotals {
  model: string;
  provider: string;
  bucket: string;
  requests: number;
  /** Outcomes of a failure class (FAILURE_CLASSES). */
  errors: number;
  latencyAvgMs: number;
  costUsd: number;
  escalations: number;
}

export interface BatchTotals {
  batches: number;
  items: number;
  /** ms since the epoch; null before any batch. */
  lastReceivedAt: number | null;
}

export interface MeshStore {
  /** Stores a batch's outcomes; those of the same team, batch and position already there are kept as they were. */
  insertOutcomes(teamId: string, batchId: string, outcomes: MeshOutcome[]): Promise<void>;
  /** Records a batch as received; false when the team already sent this batch id of this kind. */
  recordBatch(teamId: string, kind: BatchKind, batchId: string, items: number, receivedAt: number): Promise<boolean>;
  /** Totals per model, provider and bucket since `since`: of one team, or of every team. */
  outcomeTotals(since: number, teamId?: string): Promise<OutcomeTotals[]>;
  /** The batches received since `since`: of one team, or of every team. */
  batchTotals(since: number, teamId?: string): Promise<BatchTotals>;
  /** Deletes outcomes and batch records older than `before`; returns how many outcomes. */
  prune(before: number): Promise<number>;
}
