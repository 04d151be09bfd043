// A hosted team's request log (spec §2.7, §8): its runs as the log API, the exports and the console
// show them. A run is the team's when its team_id is (the hosted relay sets it: Caller.team); the
// run's own fields are Relay's, so they are mapped here to the snake_case record the hosted API
// speaks, and Relay's internal metadata keys (svc_*) are taken out of what the caller sees.
import type { RunEvent, RunRecord } from "../run-record.ts";
import { scrubSecrets } from "../secrets/known.ts";
import type { RunLog } from "../../store/runs/types.ts";

export interface LogTokens {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface LogEvent {
  type: string;
  model: string;
  provider: string;
  status?: number;
  reason?: string;
}

export interface LogRecord {
  /** The run id, `req_…` (the request id the relay answered with). */
  id: string;
  /** `evt_rel_…` when the run came from /api/relay. */
  relay_id: string | null;
  /** ISO 8601. */
  timestamp: string;
  latency_ms: number;
  /** The model that answered (routed); empty when none did. */
  model: string;
  requested_model: string;
  provider: string;
  status: number;
  tokens: LogTokens;
  estimated_cost_usd: number;
  fallback_used: boolean;
  fallback_events: LogEvent[];
  /** The caller's own metadata. */
  metadata: Record<string, unknown>;
  stream: boolean;
}

/** A page of the log and its filters (src/surfaces/cloud/log-query.ts parses them); times in ms since the epoch, both inclusive. */
export interface LogFilter {
  limit: number;
  offset: number;
  since?: number;
  until?: number;
  model?: string;
  status?: number;
}

/** The metadata key under which the hosted relay keeps the relay id (src/surfaces/cloud/relay.ts). */
export const RELAY_ID_KEY = "svc_relay_id";
/** Relay's own metadata keys start so; they are not the caller's and are not shown. */
const INTERNAL_PREFIX = "svc_";

/** Events that tell how a run moved away from a model: the failed attempts, fallbacks and escalations. */
const FALLBACK_EVENTS: ReadonlySet<RunEvent["type"]> = new Set(["error", "fallback", "escalation"]);

function logEvent(e: RunEvent): LogEvent {
  const out: LogEvent = { type: e.type, model: e.model, provider: e.provider };
  if (e.status !== undefined) out.status = e.status;
  // The router scrubs vendor texts before they are logged; scrubbed again as they leave, as every
  // vendor text Relay shows is (a run logged before a key was known stays covered).
  if (e.reason !== undefined) out.reason = scrubSecrets(e.reason);
  return out;
}

export function logRecord(r: RunRecord): LogRecord {
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.metadata)) if (!k.startsWith(INTERNAL_PREFIX)) metadata[k] = v;
  const relayId = r.metadata[RELAY_ID_KEY];
  return {
    id: r.id,
    relay_id: typeof relayId === "string" ? relayId : null,
    timestamp: new Date(r.ts).toISOString(),
    latency_ms: r.latencyMs,
    model: r.routedModel,
    requested_model: r.requestedModel,
    provider: r.provider,
    status: r.status,
    tokens: { input: r.inputTokens, output: r.outputTokens, cache_read: r.cacheReadTokens, cache_write: r.cacheWriteTokens },
    estimated_cost_usd: r.costUsd,
    fallback_used: r.fallbackUsed,
    fallback_events: r.events.filter((e) => FALLBACK_EVENTS.has(e.type)).map(logEvent),
    metadata,
    stream: r.stream,
  };
}

/** One page of the team's log, newest first, and how many runs match the filters. */
export async function teamLogs(runs: RunLog, teamId: string, f: LogFilter): Promise<{ data: LogRecord[]; total: number }> {
  const page = await runs.listRuns({ limit: f.limit, offset: f.offset, since: f.since, until: f.until, model: f.model, status: f.status, teamId });
  return { data: page.runs.map(logRecord), total: page.total };
}

/** The team's run `id`; undefined when there is none or it is another team's (or no team's). */
export async function teamLog(runs: RunLog, teamId: string, id: string): Promise<LogRecord | undefined> {
  const run = await runs.getRun(id);
  return run?.teamId === teamId ? logRecord(run) : undefined;
}

export interface TeamUsage {
  /** ISO 8601: the window, both ends inclusive. */
  since: string;
  until: string;
  requests: number;
  errors: number;
  fallbacks: number;
  tokens: LogTokens;
  estimated_cost_usd: number;
  by_model: { model: string; provider: string; requests: number; estimated_cost_usd: number; tokens: LogTokens }[];
}

const tokensOf = (t: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }): LogTokens => ({
  input: t.inputTokens,
  output: t.outputTokens,
  cache_read: t.cacheReadTokens,
  cache_write: t.cacheWriteTokens,
});

/** The team's totals over [since, until], overall and per model that answered. */
export async function teamUsage(runs: RunLog, teamId: string, since: number, until: number): Promise<TeamUsage> {
  const [totals, byModel] = await Promise.all([runs.totals(since, teamId, until), runs.totalsByModel(since, teamId, until)]);
  return {
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    requests: totals.requests,
    errors: totals.errors,
    fallbacks: totals.fallbacks,
    tokens: tokensOf(totals),
    estimated_cost_usd: totals.costUsd,
    by_model: byModel.map((m) => ({ model: m.model, provider: m.provider, requests: m.requests, estimated_cost_usd: m.costUsd, tokens: tokensOf(m) })),
  };
}

const CSV_COLUMNS = [
  "id", "relay_id", "timestamp", "latency_ms", "model", "requested_model", "provider", "status",
  "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "estimated_cost_usd",
  "fallback_used", "fallback_events", "metadata", "stream",
] as const;

const csvRow = (r: LogRecord): unknown[] => [
  r.id, r.relay_id ?? "", r.timestamp, r.latency_ms, r.model, r.requested_model, r.provider, r.status,
  r.tokens.input, r.tokens.output, r.tokens.cache_read, r.tokens.cache_write, r.estimated_cost_usd,
  r.fallback_used, JSON.stringify(r.fallback_events), JSON.stringify(r.metadata), r.stream,
];

/** A cell a spreadsheet would run as a formula starts so (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: a would-be formula prefixed with ', then quoted when it holds a quote, comma or line break (RFC 4180). */
function csvCell(value: unknown): string {
  let s = String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The records as CSV (RFC 4180: a header row, CRLF line ends); JSON columns hold fallback events and metadata. */
export function logsCsv(records: LogRecord[]): string {
  const lines = [CSV_COLUMNS.join(","), ...records.map((r) => csvRow(r).map(csvCell).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}
