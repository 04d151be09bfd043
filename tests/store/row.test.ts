// runRowTuple is the one mapping from a run to the `runs` columns: the SQLite
// writer binds it by position and toRunRow names it for Postgres. Every field
// below has a value no other field has, so a tuple with two columns swapped or
// one missing cannot pass.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { assertInsertable, bindableRow, RUN_COLUMNS, RUN_NULLABLE_COLUMNS, runRowTuple, toRunRow } from "../../src/store/row.ts";
import { pendingMigrations } from "../../src/store/migrations.ts";
import type { RunRecord } from "../../src/core/run-record.ts";

const full: RunRecord = {
  id: "req_0001",
  ts: 1_795_000_000_001,
  latencyMs: 12.34,
  requestedModel: "svc:auto",
  routedModel: "gpt-4o-mini",
  provider: "openai",
  strategy: "complexity",
  tier: "simple",
  status: 200,
  outcome: "ok",
  stream: true,
  clientFormat: "anthropic",
  inputTokens: 11,
  outputTokens: 22,
  cacheReadTokens: 33,
  cacheWriteTokens: 44,
  costUsd: 0.5,
  fallbackUsed: false,
  attempts: 3,
  events: [{ type: "attempt", model: "gpt-4o-mini", provider: "openai", status: 200, latencyMs: 9 }],
  reasons: ["simple tier (score 0.00)"],
  metadata: { team: "x" },
  sessionKey: "session-1",
  error: "none really",
  overheadMs: 0.77,
  teamId: "team_1",
};

const { tier: _t, sessionKey: _s, error: _e, teamId: _team, ...bare } = full;

/** The row `full` must become, written out column by column. */
const fullRow = {
  id: "req_0001",
  ts: 1_795_000_000_001,
  latency_ms: 12.34,
  requested_model: "svc:auto",
  routed_model: "gpt-4o-mini",
  provider: "openai",
  strategy: "complexity",
  tier: "simple",
  status: 200,
  outcome: "ok",
  stream: true,
  client_format: "anthropic",
  input_tokens: 11,
  output_tokens: 22,
  cache_read_tokens: 33,
  cache_write_tokens: 44,
  cost_usd: 0.5,
  fallback_used: false,
  attempts: 3,
  events: '[{"type":"attempt","model":"gpt-4o-mini","provider":"openai","status":200,"latencyMs":9}]',
  reasons: '["simple tier (score 0.00)"]',
  metadata: '{"team":"x"}',
  session_key: "session-1",
  error: "none really",
  overhead_ms: 0.77,
  team_id: "team_1",
};

describe("runRowTuple", () => {
  test("maps every field to its column, absent optional fields to null", () => {
    expect(toRunRow(full)).toEqual(fullRow);
    expect(toRunRow(bare as RunRecord)).toEqual({ ...fullRow, tier: null, session_key: null, error: null, team_id: null });
  });

  test("binds in RUN_COLUMNS order, also after crossing to the writer thread as JSON", () => {
    const inOrder = RUN_COLUMNS.map((c) => fullRow[c]);
    expect(bindableRow(runRowTuple(full))).toEqual(inOrder);
    expect(bindableRow(JSON.parse(JSON.stringify(runRowTuple(full))))).toEqual(inOrder);
  });

  test("binding leaves the tuple as it was, so a retried commit binds the same values", () => {
    const tuple = JSON.parse(JSON.stringify(runRowTuple(full)));
    const before = structuredClone(tuple);
    const first = bindableRow(tuple);
    expect(tuple).toEqual(before);
    expect(bindableRow(tuple)).toEqual(first);
  });
});

describe("assertInsertable (the SQLite writer's check before it journals a batch)", () => {
  test("RUN_NULLABLE_COLUMNS are exactly the columns the schema lets be NULL", () => {
    const db = new Database(":memory:");
    for (const m of pendingMigrations([], "sqlite")) for (const s of m.statements) db.run(s);
    const info = db.query("PRAGMA table_info(runs)").all() as { name: string; notnull: number; pk: number }[];
    expect(info.map((c) => c.name)).toEqual(RUN_COLUMNS);
    // SQLite lets a TEXT PRIMARY KEY be NULL (a legacy quirk); a run always has an id, and the check requires one.
    expect(info.filter((c) => c.notnull === 0 && c.pk === 0).map((c) => c.name).sort()).toEqual([...RUN_NULLABLE_COLUMNS].sort());
    db.close();
  });

  test("passes a whole row and one without its optional fields", () => {
    expect(() => assertInsertable(JSON.parse(JSON.stringify(runRowTuple(full))))).not.toThrow();
    expect(() => assertInsertable(JSON.parse(JSON.stringify(runRowTuple(bare as RunRecord))))).not.toThrow();
  });

  test("refuses what SQLite would refuse, naming the column", () => {
    const withValue = (column: string, value: unknown) => {
      const t = JSON.parse(JSON.stringify(runRowTuple(full)));
      t[RUN_COLUMNS.indexOf(column as (typeof RUN_COLUMNS)[number])] = value;
      return t;
    };
    expect(() => assertInsertable(withValue("outcome", null))).toThrow("NOT NULL constraint failed: runs.outcome");
    expect(() => assertInsertable(withValue("provider", { a: 1 }))).toThrow("runs.provider takes a plain value");
    expect(() => assertInsertable(runRowTuple(full).slice(1))).toThrow("25 values, not 26");
  });
});
