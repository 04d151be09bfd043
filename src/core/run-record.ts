// The run record: what Relay logs of each proxied request (spec §2.7). The router builds it
// (router/run.ts), the run log stores it (src/store/runs/), the surfaces show it.

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
