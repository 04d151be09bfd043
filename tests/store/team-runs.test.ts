// Runs of hosted teams in the run log (migration 8, runs.team_id) on both drivers: the team round
// trips, listRuns filters by team and until, the totals and series read one team's runs, and a
// prune without a team deletes only runs of no team while one with a team deletes only that team's.
// SQLite: a journal written before the column existed is replayed with the runs teamless.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunRecord } from "../../src/core/run-record.ts";
import { openStore } from "../../src/store/open.ts";
import { runRowTuple } from "../../src/store/row.ts";
import type { Store } from "../../src/store/types.ts";
import { sampleRun } from "../helpers/run-record.ts";
import { storeDrivers } from "./drivers.ts";

const DRIVERS = await storeDrivers("relay-team-runs");
const T0 = Date.parse("2026-11-01T00:00:00Z");

const run = (id: string, ts: number, over: Partial<RunRecord> = {}) => sampleRun({ id, ts, ...over });
const ids = (runs: RunRecord[]) => runs.map((r) => r.id);

for (const driver of DRIVERS) {
  describe.skipIf(!driver.available)(`runs of teams on ${driver.name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await driver.open();
      await store.runs.insertRuns([
        run("req_a1", T0 + 1_000, { teamId: "team_a", inputTokens: 10, costUsd: 0.5 }),
        run("req_a2", T0 + 2_000, { teamId: "team_a", inputTokens: 20, costUsd: 0.25, routedModel: "claude-haiku-4-5", provider: "anthropic", status: 500, outcome: "error" }),
        run("req_a3", T0 + 3_000, { teamId: "team_a", inputTokens: 40, costUsd: 1, fallbackUsed: true }),
        run("req_b1", T0 + 2_000, { teamId: "team_b", inputTokens: 1000, costUsd: 9 }),
        run("req_n1", T0 + 2_000, { inputTokens: 5000 }),
      ]);
    });
    afterEach(() => store.close());

    test("a run keeps its team; a run of no team has none", async () => {
      expect((await store.runs.getRun("req_a1"))!.teamId).toBe("team_a");
      const none = await store.runs.getRun("req_n1");
      expect(none).toBeDefined();
      expect("teamId" in none!).toBe(false);
    });

    test("listRuns of one team, within since..until (both inclusive), with the other filters", async () => {
      const page = await store.runs.listRuns({ limit: 10, offset: 0, teamId: "team_a" });
      expect([ids(page.runs), page.total]).toEqual([["req_a3", "req_a2", "req_a1"], 3]);
      const window = await store.runs.listRuns({ limit: 10, offset: 0, teamId: "team_a", since: T0 + 1_000, until: T0 + 2_000 });
      expect([ids(window.runs), window.total]).toEqual([["req_a2", "req_a1"], 2]);
      expect(ids((await store.runs.listRuns({ limit: 10, offset: 0, until: T0 + 1_999 })).runs)).toEqual(["req_a1"]);
      expect(ids((await store.runs.listRuns({ limit: 10, offset: 0, teamId: "team_a", status: 500 })).runs)).toEqual(["req_a2"]);
      expect(ids((await store.runs.listRuns({ limit: 1, offset: 1, teamId: "team_a" })).runs)).toEqual(["req_a2"]);
      expect((await store.runs.listRuns({ limit: 10, offset: 0, teamId: "team_none" })).total).toBe(0);
    });

    test("totals, totalsByModel and series of one team; without a team, of every run", async () => {
      const a = await store.runs.totals(T0, "team_a");
      expect(a).toMatchObject({ requests: 3, errors: 1, fallbacks: 1, inputTokens: 70, costUsd: 1.75 });
      expect(await store.runs.totals(T0, "team_a", T0 + 2_000)).toMatchObject({ requests: 2, inputTokens: 30 });
      expect((await store.runs.totals(T0)).requests).toBe(5);
      const byModel = await store.runs.totalsByModel(T0, "team_a");
      expect(byModel.map((m) => [m.model, m.provider, m.requests, m.inputTokens])).toEqual([
        ["gpt-4o-mini", "openai", 2, 50],
        ["claude-haiku-4-5", "anthropic", 1, 20],
      ]);
      expect((await store.runs.totalsByModel(T0, "team_a", T0 + 1_000)).map((m) => m.requests)).toEqual([1]);
      const series = await store.runs.series(T0, 2_000, "team_a");
      expect(series.map((b) => [b.ts, b.requests])).toEqual([[T0, 1], [T0 + 2_000, 2]]);
      expect((await store.runs.series(T0, 10_000)).map((b) => b.requests)).toEqual([5]);
    });

    test("prune without a team deletes runs of no team only; with a team, that team's only", async () => {
      const later = T0 + 10_000;
      expect(await store.runs.prune(later)).toBe(1);
      expect(await store.runs.getRun("req_n1")).toBeUndefined();
      expect(await store.runs.prune(T0 + 2_500, "team_a")).toBe(2);
      expect(ids((await store.runs.listRuns({ limit: 10, offset: 0 })).runs)).toEqual(["req_a3", "req_b1"]);
      expect(await store.runs.prune(later, "team_b")).toBe(1);
      expect(await store.runs.prune(later, "team_b")).toBe(0);
      expect(ids((await store.runs.listRuns({ limit: 10, offset: 0 })).runs)).toEqual(["req_a3"]);
    });
  });
}

describe("sqlite journal from before migration 8", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "relay-team-journal-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("its runs (a value short: no team_id) are replayed as runs of no team", async () => {
    const dbPath = path.join(root, "relay.db");
    await (await openStore({ driver: "sqlite", path: dbPath })).close();
    const old = runRowTuple(run("req_old", T0)).slice(0, -1);
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(`${dbPath}-runs-${dead.pid}-1.jsonl`, `${JSON.stringify([old])}\n`);
    const store = await openStore({ driver: "sqlite", path: dbPath });
    await store.close();
    const db = new Database(dbPath, { readonly: true });
    expect(db.query("SELECT id, team_id FROM runs").all()).toEqual([{ id: "req_old", team_id: null }]);
    db.close();
  });
});
