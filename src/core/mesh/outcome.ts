// One anonymised routing outcome, as proxies share them through the mesh (issue 38 item 6): what
// answered, for what coarse kind of request, and how it went. It carries no text by construction:
// every field is a model or provider name, a tier, a bucket built from fixed words, a class, or a number.
import type { RunRecord } from "../run-record.ts";

export const OUTCOME_CLASSES = ["ok", "rate_limited", "server_error", "timeout", "client_error", "cancelled"] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** Classes that count against a model: the vendor's failures, not the client's request or cancellation. */
export const FAILURE_CLASSES: ReadonlySet<OutcomeClass> = new Set(["rate_limited", "server_error", "timeout"]);

export interface MeshOutcome {
  /** When the request started, ms since the epoch. */
  ts: number;
  model: string;
  provider: string;
  tier?: string;
  /** The request's coarse features (bucket.ts); `unknown` for runs reported without them. */
  bucket: string;
  class: OutcomeClass;
  latencyMs: number;
  costUsd: number;
  /** Times a cascade moved up the chain. */
  escalations: number;
}

/** The class of an answered status (a run's, or an attempt's). */
export function classOf(status: number, outcome?: RunRecord["outcome"]): OutcomeClass {
  if (outcome === "cancelled") return "cancelled";
  if (status < 400) return "ok";
  if (status === 429) return "rate_limited";
  if (status === 408 || status === 504) return "timeout";
  return status >= 500 ? "server_error" : "client_error";
}

/**
 * The outcomes of one run: one per vendor attempt that failed and was moved past (so a model
 * failing behind a successful fallback still counts as failing), then the answer's own.
 */
export function outcomesOf(run: RunRecord, bucket: string): MeshOutcome[] {
  const escalations = run.events.filter((e) => e.type === "escalation").length;
  const base = { ts: run.ts, ...(run.tier !== undefined && { tier: run.tier }), bucket, escalations: 0 };
  const failed: MeshOutcome[] = run.events
    .filter((e) => e.type === "error" && e.status !== undefined && e.status >= 400)
    .filter((e) => !(e.model === run.routedModel && e.provider === run.provider && e.status === run.status))
    .map((e) => ({ ...base, model: e.model, provider: e.provider, class: classOf(e.status!), latencyMs: e.latencyMs ?? 0, costUsd: 0 }));
  const own = { ...base, model: run.routedModel, provider: run.provider, class: classOf(run.status, run.outcome), latencyMs: run.latencyMs, costUsd: run.costUsd, escalations };
  return [...failed, own];
}
