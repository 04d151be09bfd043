// Storage seams. Callers depend only on these interfaces; bun:sqlite is the
// embedded default and Postgres (Bun.SQL) serves multi-instance deployments.

/** One routing event inside a run: an attempt, a fallback, an escalation. */
export interface RunEvent {
  /** budget_cap: Relay capped max_tokens to what the budget affords; budget_overshoot: the vendor billed past max_tokens or the reservation. */
  type: "attempt" | "fallback" | "escalation" | "error" | "mismatch" | "budget_cap" | "budget_overshoot";
  model: string;
  provider: string;
  status?: number;
  reason?: string;
  latencyMs?: number;
}

/** One proxied request, as logged (spec §2.7). */
export interface RunRecord {
  id: string;
  /** Start time, ms since the epoch. */
  ts: number;
  latencyMs: number;
  requestedModel: string;
  routedModel: string;
  provider: string;
  strategy: string;
  tier?: string;
  /** HTTP status answered to the client. */
  status: number;
  outcome: "ok" | "error" | "cancelled";
  stream: boolean;
  clientFormat: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  fallbackUsed: boolean;
  attempts: number;
  events: RunEvent[];
  reasons: string[];
  metadata: Record<string, unknown>;
  sessionKey?: string;
  error?: string;
  /** Gateway's own time on the request, excluding the vendor's. */
  overheadMs: number;
}

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

/** Small persistent key/value state: control switches, spend counters. */
export interface KvStore {
  getKv(key: string): Promise<string | undefined>;
  setKv(key: string, value: string): Promise<void>;
  /** Atomically add to a numeric counter and return the new value. */
  incrBy(key: string, delta: number): Promise<number>;
}

export interface Agent {
  id: string;
  name: string;
  capability: string;
  description: string;
  endpoint: string;
  protocol: string;
  created_at: string;
}

export interface AgentRegistry {
  insertAgent(agent: Agent): Promise<void>;
  listAgents(q: { capability?: string; limit: number; offset: number }): Promise<{ agents: Agent[]; total: number }>;
}

export interface Store extends RunLog, KvStore, AgentRegistry {
  readonly driver: "sqlite" | "postgres";
  /** Apply pending versioned migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** True when the database reports no corruption. */
  integrityCheck(): Promise<boolean>;
  /** Finish pending work and release the database. */
  close(): Promise<void>;
}
