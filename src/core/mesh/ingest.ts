// The bodies of the cloud's telemetry uploads, checked field by field (400 naming the field):
// POST /v1/telemetry (mesh outcomes) and POST /v1/telemetry/logs (run records, §2.7). Names are
// limited to name characters and buckets to their fixed shape, so an outcome cannot carry text.
import { array, invalid, object } from "../registry/fields.ts";
import { BUCKET_PATTERN } from "./bucket.ts";
import { OUTCOME_CLASSES, type MeshOutcome, type OutcomeClass } from "./outcome.ts";

/** Items of one batch at most; a larger upload is split by its sender. */
export const MAX_BATCH_ITEMS = 1_000;
/** A model or provider name: letters, digits and `._:/@-`, no spaces. */
const NAME = /^[A-Za-z0-9._:/@-]{1,128}$/;
const BATCH_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const TIERS = new Set(["simple", "moderate", "complex"]);

export function batchIdOf(body: Record<string, unknown>): string {
  const id = body.batch_id;
  if (typeof id !== "string" || !BATCH_ID.test(id)) throw invalid("batch_id", id, "string", "must be 8 to 128 letters, digits or ._:-");
  return id;
}

export function name(value: unknown, parameter: string): string {
  if (typeof value !== "string" || !NAME.test(value)) throw invalid(parameter, value, "string", "must be a name of 1 to 128 letters, digits or ._:/@-");
  return value;
}

export function number(value: unknown, parameter: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) throw invalid(parameter, value, "number", `must be a number from ${min} to ${max}`);
  return value;
}

export function integer(value: unknown, parameter: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value)) throw invalid(parameter, value, "integer", `must be an integer from ${min} to ${max}`);
  return number(value, parameter, min, max);
}

export function tierOf(value: unknown, parameter: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !TIERS.has(value)) throw invalid(parameter, value, "string", "must be simple, moderate or complex");
  return value;
}

/** A time as ms since the epoch or an ISO 8601 string. */
export function timeOf(value: unknown, parameter: string): number {
  const ms = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw invalid(parameter, value, "string", "must be an ISO 8601 time or ms since the epoch");
  return ms;
}

/** The items of a batch: an array of 1 to MAX_BATCH_ITEMS. */
export function items(body: Record<string, unknown>, field: string): unknown[] {
  const list = array(body[field], field, MAX_BATCH_ITEMS);
  if (list.length === 0) throw invalid(field, list, "array", "must hold at least one item");
  return list;
}

function outcomeOf(value: unknown, at: string): MeshOutcome {
  const o = object(value, at);
  const cls = o.class;
  if (typeof cls !== "string" || !(OUTCOME_CLASSES as readonly string[]).includes(cls)) {
    throw invalid(`${at}.class`, cls, "string", `must be one of ${OUTCOME_CLASSES.join(", ")}`);
  }
  const bucket = o.bucket;
  if (typeof bucket !== "string" || !BUCKET_PATTERN.test(bucket)) throw invalid(`${at}.bucket`, bucket, "string", "must be <tier|none>.<xs|s|m|l> or unknown");
  const tier = tierOf(o.tier, `${at}.tier`);
  return {
    ts: timeOf(o.ts, `${at}.ts`),
    model: name(o.model, `${at}.model`),
    provider: name(o.provider, `${at}.provider`),
    ...(tier !== undefined && { tier }),
    bucket,
    class: cls as OutcomeClass,
    latencyMs: number(o.latency_ms, `${at}.latency_ms`, 0),
    costUsd: number(o.cost_usd ?? 0, `${at}.cost_usd`, 0),
    escalations: integer(o.escalations ?? 0, `${at}.escalations`, 0, 100),
  };
}

/** POST /v1/telemetry's body: `{batch_id, outcomes: [...]}`. */
export function outcomeBatch(body: Record<string, unknown>): { batchId: string; outcomes: MeshOutcome[] } {
  const batchId = batchIdOf(body);
  return { batchId, outcomes: items(body, "outcomes").map((o, i) => outcomeOf(o, `outcomes[${i}]`)) };
}

/** An outcome as sent over the wire (snake_case), from one the proxy made. */
export function outcomeWire(o: MeshOutcome): Record<string, unknown> {
  return { ts: o.ts, model: o.model, provider: o.provider, ...(o.tier !== undefined && { tier: o.tier }), bucket: o.bucket, class: o.class, latency_ms: o.latencyMs, cost_usd: o.costUsd, escalations: o.escalations };
}

