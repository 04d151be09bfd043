// The run log's SQLite insert writes runs INSERT_GROUP at a time in one
// statement, and the rest one by one. Both kinds must store every field as
// the one-run path does, and must skip a run whose id is stored already (a
// journal replayed after a crash holds runs that were committed before it).
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { pendingMigrations } from "../../src/store/migrations.ts";
import { bindableRow, bindableRows, fromRunRow, RUN_COLUMNS, runRowTuple, type RunRowTuple } from "../../src/store/row.ts";
import { INSERT_GROUP, runInserter } from "../../src/store/sqlite-insert.ts";
import type { RunRecord } from "../../src/core/run-record.ts";
import { sampleRun } from "../helpers/run-record.ts";

function migrated(): Database {
  const db = new Database(":memory:", { strict: true });
  for (const m of pendingMigrations([], "sqlite")) for (const s of m.statements) db.run(s);
  return db;
}

/** Every third run has reasons, metadata, a tier, a session and an error; the others have none. */
function runs(n: number, prefix: string): RunRecord[] {
  return Array.from({ length: n }, (_, i) =>
    sampleRun(
      i % 3 === 0
        ? { id: `${prefix}${i}`, reasons: [`reason ${i}`], metadata: { team: `t${i}`, nested: { n: i } }, tier: "simple", sessionKey: `s${i}`, error: `e${i}` }
        : { id: `${prefix}${i}`, latencyMs: i + 0.25 },
    ),
  );
}

/** The tuples as the writer thread gets them: parsed from the batch's JSON. */
const crossed = (records: RunRecord[]): RunRowTuple[] => JSON.parse(JSON.stringify(records.map(runRowTuple)));

const stored = (db: Database): RunRecord[] => (db.query("SELECT * FROM runs ORDER BY id").all() as Record<string, unknown>[]).map(fromRunRow);

describe("runInserter", () => {
  test("stores groups and the runs left over alike, every field as it was", () => {
    const db = migrated();
    const records = runs(INSERT_GROUP * 2 + 5, "req_a");
    runInserter(db)(crossed(records));
    expect(stored(db)).toEqual([...records].sort((x, y) => (x.id < y.id ? -1 : 1)));
  });

  test("a replayed batch changes nothing, whether its runs fall in a group or not", () => {
    const db = migrated();
    const insert = runInserter(db);
    const first = runs(INSERT_GROUP + 3, "req_b");
    insert(crossed(first));
    const before = stored(db);
    // The same runs with other values, shifted by one so that groups and leftovers fall differently.
    const replayed = first.map((r) => ({ ...r, latencyMs: 999, error: "replayed" }));
    insert(crossed([sampleRun({ id: "req_b-new" }), ...replayed]));
    const after = stored(db);
    expect(after.filter((r) => r.id !== "req_b-new")).toEqual(before);
    expect(after).toHaveLength(first.length + 1);
  });

  test("a run repeated inside one group is stored once, as first written", () => {
    const db = migrated();
    const records = runs(INSERT_GROUP, "req_c");
    records[INSERT_GROUP - 1] = { ...records[0]!, latencyMs: 42 };
    runInserter(db)(crossed(records));
    const rows = stored(db);
    expect(rows).toHaveLength(INSERT_GROUP - 1);
    expect(rows.find((r) => r.id === records[0]!.id)!.latencyMs).toBe(records[0]!.latencyMs);
  });
});

describe("bindableRows", () => {
  test("binds runs one after the other exactly as bindableRow binds each", () => {
    const tuples = crossed(runs(4, "req_d"));
    const values: Array<string | number | boolean | null> = new Array(3 * RUN_COLUMNS.length);
    bindableRows(tuples, 1, 3, values);
    expect(values).toEqual(tuples.slice(1).flatMap(bindableRow));
  });

  test("empty reasons and metadata bind as their JSON text", () => {
    const [tuple] = crossed([sampleRun({ reasons: [], metadata: {} })]);
    const values = bindableRow(tuple!);
    expect(values[RUN_COLUMNS.indexOf("reasons")]).toBe("[]");
    expect(values[RUN_COLUMNS.indexOf("metadata")]).toBe("{}");
    expect(values[RUN_COLUMNS.indexOf("events")]).toBe(JSON.stringify(tuple![RUN_COLUMNS.indexOf("events")]));
  });
});
