// Runs past telemetry.retentionDays are pruned when Relay starts (on the store's
// writer thread, not awaited by the start).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/open.ts";
import { eventually } from "../proxy/world.ts";
import { startRelay } from "../helpers/relay.ts";
import { sampleRun } from "../helpers/run-record.ts";

test("runs older than retentionDays are pruned at start, and only those", async () => {
  const home = mkdtempSync(join(tmpdir(), "relay-retention-"));
  try {
    const store = await openStore({ driver: "sqlite", path: join(home, "data", "relay.db") });
    const old = Date.now() - 3 * 86_400_000;
    await store.runs.insertRuns(Array.from({ length: 5_000 }, (_, i) => sampleRun({ id: `req_old_${i}`, ts: old + i })));
    await store.runs.insertRuns([sampleRun({ id: "req_recent" })]);
    await store.close();

    const r = await startRelay({ home, config: { telemetry: { retentionDays: 2 } } });
    try {
      expect((await fetch(`${r.url}/health`)).status).toBe(200);
      const left = await eventually(async () => {
        const { runs, total } = await r.relay.store.runs.listRuns({ limit: 10, offset: 0 });
        return total === 1 ? runs : undefined;
      }, "the old runs to be pruned");
      expect(left.map((run) => run.id)).toEqual(["req_recent"]);
    } finally {
      await r.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
