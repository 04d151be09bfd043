// The run record: what Relay logs of each proxied request (spec §2.7). The router builds it
// (router/run.ts), the run log stores it (src/store/runs/), the surfaces show it.

/** One routing event inside a run: an attempt, a fallback, an escalation. */
export interface RunEvent {
  /**
   * budget_cap: Relay capped max_tokens to what the budget affords; budget_overshoot: the vendor billed past
   * max_tokens or the reservation; cost_unknown: the model has no listed price (see costUnknown).
   */
  type: "attempt" | "fallback" | "escalation" | "error" | "mismatch" | "budget_cap" | "budget_overshoot" | "cost_unknown";
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
  /** The hosted team whose run it is (src/core/tenancy/request-log.ts); absent on the proxy's own runs. */
  teamId?: string;
}

/**
 * Whether the run's cost is unknown: the model that answered has no listed price (its costUsd reads 0,
 * src/core/catalog/unpriced.ts). A vendor's refusal (status 400 and up) bills nothing, so its 0 is known.
 */
export function costUnknown(r: Pick<RunRecord, "events" | "routedModel" | "provider" | "status">): boolean {
  return r.status < 400 && r.events.some((e) => e.type === "cost_unknown" && e.model === r.routedModel && e.provider === r.provider);
}
