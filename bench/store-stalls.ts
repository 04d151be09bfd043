// How long the SQLite store's slow operations hold the thread that serves requests. A file store
// is filled with a day of runs (--runs, default 1,000,000: about a day at 12 requests/s, 270 MB;
// built once per size and kept in the OS temp folder), then each read the dashboard, the telemetry
// API and the hosted /health make runs twice, and the second call prints its time and the longest
// gap between this thread's 1 ms timer ticks meanwhile. A gap as long as the read means the read
// ran on this thread. Last, the integrity check's first call and a prune of the oldest hour (on a
// copy of the file, so every run starts alike). Not a gate; asserts nothing.
//   bun bench/store-stalls.ts [--runs 1000000]
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { bindableRow, INSERT_RUN_POSITIONAL, runRowTuple } from "../src/store/row.ts";
import { openStore } from "../src/store/open.ts";
import type { Store } from "../src/store/types.ts";
import { sampleRun } from "../tests/helpers/run-record.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "1000000" } } });
const RUNS = Number(values.runs);
const DAY_MS = 86_400_000;
const MODELS = ["gpt-4o-mini", "gpt-4o", "claude-haiku-4-5", "claude-sonnet-4-5"];

const dir = join(tmpdir(), `relay-store-stalls-${RUNS}`);
const built = join(dir, "built.db");
// The runs' times are relative to when the file was built, so the windows below start from it.
const stampFile = join(dir, "built-at");
if (!existsSync(built) || !existsSync(stampFile)) {
  mkdirSync(dir, { recursive: true });
  const at = Date.now();
  const fresh = await openStore({ driver: "sqlite", path: built });
  await fresh.close();
  const db = new Database(built);
  const insert = db.query(INSERT_RUN_POSITIONAL);
  db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const run = sampleRun({ id: `req_${String(i).padStart(9, "0")}`, ts: at - DAY_MS + Math.floor((i / RUNS) * DAY_MS), routedModel: MODELS[i % MODELS.length] });
      insert.run(...bindableRow(runRowTuple(run)));
    }
  })();
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  await Bun.write(stampFile, String(at));
}
const builtAt = Number(await Bun.file(stampFile).text());

let longestGap = 0;
let lastTick = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - lastTick);
  lastTick = now;
}, 1);

/** Times one call of `op` and the longest gap between this thread's ticks meanwhile. */
async function timed(name: string, op: () => Promise<unknown>): Promise<void> {
  await Bun.sleep(5);
  longestGap = 0;
  lastTick = performance.now();
  const t0 = performance.now();
  await op();
  const ms = performance.now() - t0;
  await Bun.sleep(5); // the tick that ends a stall
  console.log(`  ${name.padEnd(44)} ${ms.toFixed(1).padStart(7)} ms   longest event-loop gap ${longestGap.toFixed(1).padStart(6)} ms`);
}

/** The second of two calls: the first warms the page cache and the statement cache. */
async function measure(name: string, op: () => Promise<unknown>): Promise<void> {
  await op();
  await timed(name, op);
}

const work = join(dir, "work.db");
rmSync(work, { force: true });
copyFileSync(built, work);
const store: Store = await openStore({ driver: "sqlite", path: work });
try {
  console.log(`SQLite store with ${RUNS.toLocaleString("en-US")} runs over a day (${dir})`);
  const day = builtAt - DAY_MS;
  const hour = builtAt - 3_600_000;
  await measure("totals, 24 h", () => store.totals(day));
  await measure("totals, 1 h", () => store.totals(hour));
  await measure("totals by model, 24 h", () => store.totalsByModel(day));
  await measure("series, 24 h in 1 h buckets", () => store.series(day, 3_600_000));
  await measure("latencies, last 10,000", () => store.latencies(day, 10_000));
  await measure("page of 50 runs with its count", () => store.listRuns({ limit: 50, offset: 0 }));
  await measure("a model's page of 50 runs with its count", () => store.listRuns({ limit: 50, offset: 0, model: "gpt-4o" }));
  // Once each: the store reuses an integrity verdict for ten minutes, and a second prune of the same
  // hour finds nothing.
  await timed("integrity check (hosted /health), first call", () => store.integrityCheck());
  let deleted = 0;
  await timed("prune of the oldest hour", async () => (deleted = await store.prune(day + 3_600_000)));
  console.log(`  (the prune deleted ${deleted.toLocaleString("en-US")} runs)`);
} finally {
  clearInterval(ticker);
  await store.close();
  rmSync(work, { force: true });
}
