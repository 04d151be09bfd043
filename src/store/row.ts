// The one mapping between RunRecord and the `runs` table row, used by both
// drivers. Rows coming back are normalised here: Postgres returns BIGINT and
// aggregates as strings and JSONB already parsed; SQLite returns booleans as
// 0/1 and JSON as text.

import type { RunRecord } from "../core/run-record.ts";
import type { ModelTotals, RunTotals } from "./runs/types.ts";

// A type alias (not an interface) so it is assignable to bun:sqlite's
// named-binding record type.
export type RunRow = {
  id: string;
  ts: number;
  latency_ms: number;
  requested_model: string;
  routed_model: string;
  provider: string;
  strategy: string;
  tier: string | null;
  status: number;
  outcome: string;
  stream: boolean;
  client_format: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  fallback_used: boolean;
  attempts: number;
  /** JSON text. */
  events: string;
  /** JSON text. */
  reasons: string;
  /** JSON text. */
  metadata: string;
  session_key: string | null;
  error: string | null;
  overhead_ms: number;
  team_id: string | null;
};

export type ColumnKind = "text" | "int" | "real" | "bool" | "json";

/** Every `runs` column with its kind; the Record type keeps it complete. */
export const RUN_COLUMN_KINDS: Record<keyof RunRow, ColumnKind> = {
  id: "text",
  ts: "int",
  latency_ms: "real",
  requested_model: "text",
  routed_model: "text",
  provider: "text",
  strategy: "text",
  tier: "text",
  status: "int",
  outcome: "text",
  stream: "bool",
  client_format: "text",
  input_tokens: "int",
  output_tokens: "int",
  cache_read_tokens: "int",
  cache_write_tokens: "int",
  cost_usd: "real",
  fallback_used: "bool",
  attempts: "int",
  events: "json",
  reasons: "json",
  metadata: "json",
  session_key: "text",
  error: "text",
  overhead_ms: "real",
  team_id: "text",
};

export const RUN_COLUMNS = Object.keys(RUN_COLUMN_KINDS) as (keyof RunRow)[];

/** The columns that may be NULL (migrations 1 and 8; tests/store/row.test.ts holds this to the SQLite schema). */
export const RUN_NULLABLE_COLUMNS: ReadonlySet<keyof RunRow> = new Set(["tier", "session_key", "error", "team_id"]);

/**
 * A run's column values in RUN_COLUMNS order, its JSON columns still values: the one mapping from
 * RunRecord to the `runs` columns (toRunRow names them). It is also the form a batch crosses to the
 * SQLite writer thread in: as JSON it is half the text of the records (no keys), quicker to write on
 * the request thread and to read on the writer's, and positional binding skips matching 25 names
 * per row. tests/store/row.test.ts holds each value to its column.
 */
export type RunRowTuple = Array<string | number | boolean | null | object>;

// team_id is last, as migration 8 added it: a journal written before it holds tuples a value short,
// whose missing team_id binds as NULL on replay (tests/store/team-runs.test.ts).
export function runRowTuple(r: RunRecord): RunRowTuple {
  return [
    r.id,
    r.ts,
    r.latencyMs,
    r.requestedModel,
    r.routedModel,
    r.provider,
    r.strategy,
    r.tier ?? null,
    r.status,
    r.outcome,
    r.stream,
    r.clientFormat,
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheWriteTokens,
    r.costUsd,
    r.fallbackUsed,
    r.attempts,
    r.events,
    r.reasons,
    r.metadata,
    r.sessionKey ?? null,
    r.error ?? null,
    r.overheadMs,
    r.teamId ?? null,
  ];
}

const JSON_COLUMN_INDEXES = RUN_COLUMNS.flatMap((c, i) => (RUN_COLUMN_KINDS[c] === "json" ? [i] : []));

/**
 * Values to bind in RUN_COLUMNS order: a copy of the tuple with its JSON columns as text. Not in
 * place: the SQLite writer binds the same tuples again when a failed commit is retried.
 */
export function bindableRow(tuple: RunRowTuple): Array<string | number | boolean | null> {
  const values: Array<string | number | boolean | null> = new Array(RUN_COLUMNS.length);
  bindableRows([tuple], 0, 1, values);
  return values;
}

/** bindableRow of `count` tuples from `from`, one after the other in `into` (see insertRunsPositional). */
export function bindableRows(tuples: RunRowTuple[], from: number, count: number, into: Array<string | number | boolean | null>): void {
  const width = RUN_COLUMNS.length;
  for (let r = 0; r < count; r++) {
    const tuple = tuples[from + r]!;
    const at = r * width;
    for (let i = 0; i < width; i++) into[at + i] = tuple[i] as string | number | boolean | null;
    for (const i of JSON_COLUMN_INDEXES) into[at + i] = jsonText(tuple[i]);
  }
}

/**
 * JSON text of a JSON column's value. Most runs have no reasons and no metadata: their text is known
 * without a stringify (~0.15 µs a run on the writer thread, measured with bench/run-log.ts, since removed).
 */
function jsonText(v: RunRowTuple[number]): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
  } else if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    for (const _ in v) return JSON.stringify(v);
    return "{}";
  }
  return JSON.stringify(v);
}

/**
 * Throws what SQLite would say if `tuple` (as it arrives from JSON) cannot be inserted: a NULL in a
 * NOT NULL column, or a structured value in a plain column. The SQLite writer checks a batch before
 * journaling it, because a row that could never be committed would hold up every row behind it.
 */
export function assertInsertable(tuple: RunRowTuple): void {
  if (tuple.length !== RUN_COLUMNS.length) throw new Error(`a run row has ${tuple.length} values, not ${RUN_COLUMNS.length}`);
  for (let i = 0; i < RUN_COLUMNS.length; i++) {
    const column = RUN_COLUMNS[i]!;
    const v = tuple[i];
    if (v === null || v === undefined) {
      if (!RUN_NULLABLE_COLUMNS.has(column)) throw new Error(`NOT NULL constraint failed: runs.${column}`);
    } else if (typeof v === "object" && RUN_COLUMN_KINDS[column] !== "json") {
      throw new Error(`runs.${column} takes a plain value, not ${Array.isArray(v) ? "an array" : "an object"}`);
    }
  }
}

/** The row by column name (Postgres inserts rows as JSON objects). */
export function toRunRow(r: RunRecord): RunRow {
  const values = bindableRow(runRowTuple(r));
  const row: Record<string, string | number | boolean | null> = {};
  for (let i = 0; i < RUN_COLUMNS.length; i++) row[RUN_COLUMNS[i]!] = values[i]!;
  return row as RunRow;
}

/**
 * INSERT of `rows` runs (default one) with `?` parameters in RUN_COLUMNS order, run after run (see
 * runRowTuple); re-inserting an id changes nothing.
 */
export function insertRunsPositional(rows = 1): string {
  const values = `(${RUN_COLUMNS.map(() => "?").join(", ")})`;
  return `INSERT INTO runs (${RUN_COLUMNS.join(", ")}) VALUES ${Array.from({ length: rows }, () => values).join(", ")} ON CONFLICT (id) DO NOTHING`;
}

export const INSERT_RUN_POSITIONAL = insertRunsPositional();

type Row = Record<string, unknown>;

const json = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
const optional = (v: unknown): string | undefined => (v == null ? undefined : String(v));

export function fromRunRow(row: Row): RunRecord {
  const rec: RunRecord = {
    id: String(row.id),
    ts: Number(row.ts),
    latencyMs: Number(row.latency_ms),
    requestedModel: String(row.requested_model),
    routedModel: String(row.routed_model),
    provider: String(row.provider),
    strategy: String(row.strategy),
    status: Number(row.status),
    outcome: row.outcome as RunRecord["outcome"],
    stream: Boolean(row.stream),
    clientFormat: String(row.client_format),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    costUsd: Number(row.cost_usd),
    fallbackUsed: Boolean(row.fallback_used),
    attempts: Number(row.attempts),
    events: json(row.events) as RunRecord["events"],
    reasons: json(row.reasons) as string[],
    metadata: json(row.metadata) as Record<string, unknown>,
    overheadMs: Number(row.overhead_ms),
  };
  // Optional fields stay absent rather than `undefined`-valued so records
  // round-trip with deep equality.
  const tier = optional(row.tier);
  if (tier !== undefined) rec.tier = tier;
  const sessionKey = optional(row.session_key);
  if (sessionKey !== undefined) rec.sessionKey = sessionKey;
  const error = optional(row.error);
  if (error !== undefined) rec.error = error;
  const teamId = optional(row.team_id);
  if (teamId !== undefined) rec.teamId = teamId;
  return rec;
}

/** Aggregate columns shared by totals and per-model totals. */
export const TOTALS_SELECT = `COUNT(*) AS requests,
  COALESCE(SUM(CASE WHEN outcome = 'error' THEN 1 ELSE 0 END), 0) AS errors,
  COALESCE(SUM(input_tokens), 0) AS input_tokens,
  COALESCE(SUM(output_tokens), 0) AS output_tokens,
  COALESCE(SUM(cache_read_tokens), 0) AS cache_read_tokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens,
  COALESCE(SUM(cost_usd), 0) AS cost_usd,
  COALESCE(SUM(CASE WHEN fallback_used THEN 1 ELSE 0 END), 0) AS fallbacks`;

export function fromTotalsRow(row: Row): RunTotals {
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    costUsd: Number(row.cost_usd),
    fallbacks: Number(row.fallbacks),
  };
}

export function fromModelTotalsRow(row: Row): ModelTotals {
  return { model: String(row.routed_model), provider: String(row.provider), ...fromTotalsRow(row) };
}
