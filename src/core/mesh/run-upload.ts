// POST /v1/telemetry/logs' records: run records (spec §2.7) in the shape the hosted log API answers
// them (request-log.ts' LogRecord), sent by the SDK and by proxies, stored as the team's runs so
// that /api/logs, /api/usage and /v1/telemetry/stats|runs|savings read them. A record holds no
// prompt or answer text: only names, numbers, the fallback events' reasons and the caller's metadata.
import type { RunEvent, RunRecord } from "../run-record.ts";
import { array, bool, invalid, object, text } from "../registry/fields.ts";
import { scrubSecrets } from "../secrets/known.ts";
import { integer, items, name, number, tierOf, timeOf } from "./ingest.ts";

/** The serialised metadata of one record at most. */
const METADATA_MAX_BYTES = 8 * 1024;
const EVENT_TYPES = new Set<RunEvent["type"]>(["attempt", "fallback", "escalation", "error"]);
/** Relay's own metadata keys (request-log.ts): a caller cannot set them. */
const INTERNAL_PREFIX = "svc_";

function eventOf(value: unknown, at: string): RunEvent {
  const e = object(value, at);
  if (typeof e.type !== "string" || !EVENT_TYPES.has(e.type as RunEvent["type"])) throw invalid(`${at}.type`, e.type, "string", "must be attempt, fallback, escalation or error");
  return {
    type: e.type as RunEvent["type"],
    model: name(e.model, `${at}.model`),
    provider: name(e.provider, `${at}.provider`),
    ...(e.status !== undefined && { status: integer(e.status, `${at}.status`, 100, 599) }),
    ...(e.reason !== undefined && { reason: scrubSecrets(text(e.reason, `${at}.reason`, 500)) }),
  };
}

function metadataOf(value: unknown, at: string): Record<string, unknown> {
  if (value === undefined) return {};
  const m = object(value, at);
  if (JSON.stringify(m).length > METADATA_MAX_BYTES) throw invalid(at, "(too large)", "object", `must serialise to at most ${METADATA_MAX_BYTES} bytes`);
  return Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith(INTERNAL_PREFIX)));
}

function tokensOf(value: unknown, at: string) {
  const t = object(value, at);
  return {
    inputTokens: integer(t.input, `${at}.input`, 0),
    outputTokens: integer(t.output, `${at}.output`, 0),
    cacheReadTokens: integer(t.cache_read ?? 0, `${at}.cache_read`, 0),
    cacheWriteTokens: integer(t.cache_write ?? 0, `${at}.cache_write`, 0),
  };
}

function runOf(value: unknown, at: string, teamId: string): RunRecord {
  const r = object(value, at);
  const status = integer(r.status, `${at}.status`, 100, 599);
  const events = array(r.fallback_events ?? [], `${at}.fallback_events`, 50).map((e, i) => eventOf(e, `${at}.fallback_events[${i}]`));
  const model = name(r.model, `${at}.model`);
  const tier = tierOf(r.tier, `${at}.tier`);
  return {
    id: name(r.id, `${at}.id`),
    ts: timeOf(r.timestamp, `${at}.timestamp`),
    latencyMs: number(r.latency_ms, `${at}.latency_ms`, 0),
    requestedModel: r.requested_model === undefined ? model : name(r.requested_model, `${at}.requested_model`),
    routedModel: model,
    provider: name(r.provider, `${at}.provider`),
    strategy: "reported",
    ...(tier !== undefined && { tier }),
    status,
    outcome: status < 400 ? "ok" : "error",
    stream: r.stream === undefined ? false : bool(r.stream, `${at}.stream`),
    clientFormat: "reported",
    ...tokensOf(r.tokens, `${at}.tokens`),
    costUsd: number(r.estimated_cost_usd ?? 0, `${at}.estimated_cost_usd`, 0),
    fallbackUsed: r.fallback_used === undefined ? events.some((e) => e.type === "fallback") : bool(r.fallback_used, `${at}.fallback_used`),
    attempts: Math.max(1, events.filter((e) => e.type === "error").length + 1),
    events,
    reasons: [],
    metadata: metadataOf(r.metadata, `${at}.metadata`),
    overheadMs: 0,
    teamId,
  };
}

/** The body `{batch_id, runs: [...]}`'s records, as `teamId`'s runs. */
export function runBatch(body: Record<string, unknown>, teamId: string): RunRecord[] {
  return items(body, "runs").map((r, i) => runOf(r, `runs[${i}]`, teamId));
}
