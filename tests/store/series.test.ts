// RunLog.series (dashboard charts) against both drivers. Postgres is optional
// locally (skipped with a warning) but required when CI=true, as in store.test.ts.

import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openStore } from "../../src/store/open.ts";
import type { RunRecord } from "../../src/core/run-record.ts";
import type { Store } from "../../src/store/types.ts";
import { postgresReachable } from "./drivers.ts";

const PG_URL = process.env.RELAY_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const hasPostgres = await postgresReachable(PG_URL);
if (!hasPostgres) {
  if (process.env.CI === "true") throw new Error(`postgres unreachable at ${PG_URL}: CI requires it`);
  console.warn(`postgres unreachable at ${PG_URL}: skipping`);
}

const T0 = 1_700_000_000_000;
const MIN = 60_000;

function run(id: string, ts: number, over: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    ts,
    latencyMs: 100,
    requestedModel: "auto",
    routedModel: "m1",
    provider: "p1",
    strategy: "cascade",
    status: 200,
    outcome: "ok",
    stream: false,
    clientFormat: "openai",
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.5,
    fallbackUsed: false,
    attempts: 1,
    events: [],
    reasons: [],
    metadata: {},
    overheadMs: 1,
    ...over,
  };
}

const schema = `relay_series_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const root = mkdtempSync(path.join(tmpdir(), "relay-series-"));
const drivers: { name: string; available: boolean; open: () => Promise<Store> }[] = [
  { name: "sqlite", available: true, open: () => openStore({ driver: "sqlite", path: path.join(root, "relay.db") }) },
  { name: "postgres", available: hasPostgres, open: () => openStore({ driver: "postgres", url: PG_URL, schema }) },
];

afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  if (!hasPostgres) return;
  const admin = new SQL(PG_URL, { max: 1 });
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.close();
});

for (const driver of drivers) {
  describe.skipIf(!driver.available)(`series (${driver.name})`, () => {
    test("groups runs into buckets aligned to `since`, oldest first, empty buckets left out", async () => {
      const store = await driver.open();
      try {
        await store.runs.insertRuns([
          run("before", T0 - 1), // outside the range
          run("a", T0, { latencyMs: 100, costUsd: 0.25 }),
          run("b", T0 + MIN - 1, { latencyMs: 300, costUsd: 0.5, outcome: "error", status: 502, fallbackUsed: true }),
          run("c", T0 + 3 * MIN + 5, { latencyMs: 50, inputTokens: 7, outputTokens: 3 }),
        ]);
        const buckets = await store.runs.series(T0, MIN);
        expect(buckets.map((b) => b.ts)).toEqual([T0, T0 + 3 * MIN]);
        expect(buckets[0]).toMatchObject({ requests: 2, errors: 1, fallbacks: 1, latencyAvgMs: 200, latencyMaxMs: 300 });
        expect(buckets[0]!.costUsd).toBeCloseTo(0.75);
        expect(buckets[1]).toMatchObject({ requests: 1, errors: 0, inputTokens: 7, outputTokens: 3, latencyAvgMs: 50, latencyMaxMs: 50 });
        expect(await store.runs.series(T0 + 10 * MIN, MIN)).toEqual([]);
      } finally {
        await store.close();
      }
    });
  });
}
