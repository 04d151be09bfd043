// The SQLite writer binds run rows by position from runRowTuple, written out by
// hand for speed; the column mapping itself is toRunRow (which Postgres uses by
// name). Every field below has a value no other field has, so a tuple with two
// columns swapped or one missing cannot pass.
import { describe, expect, test } from "bun:test";
import { bindableRow, RUN_COLUMNS, runRowTuple, toRunRow } from "../../src/store/row.ts";
import type { RunRecord } from "../../src/store/types.ts";

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
};

const { tier: _t, sessionKey: _s, error: _e, ...bare } = full;

describe("runRowTuple", () => {
  test("has one value per column, in RUN_COLUMNS order, as toRunRow maps them", () => {
    for (const record of [full, bare as RunRecord]) {
      const byName = toRunRow(record);
      expect(bindableRow(runRowTuple(record))).toEqual(RUN_COLUMNS.map((c) => byName[c]));
    }
  });

  test("crosses to the writer thread as JSON and binds the same values", () => {
    const sent = JSON.parse(JSON.stringify([runRowTuple(full)]));
    const byName = toRunRow(full);
    expect(bindableRow(sent[0])).toEqual(RUN_COLUMNS.map((c) => byName[c]));
  });
});
