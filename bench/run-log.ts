// CPU cost of the SQLite run log per run, off the request thread: a file store
// (the default) fed batches the size the telemetry writer hands over under the
// load bench (~18 runs; --batch), one batch in flight at a time as RunWriter
// does. Prints the CPU per run of the writer thread (the "Worker" thread, read
// from /proc) and of the calling thread, and the wall time per batch round
// trip. The runs are the load bench's: one attempt event, no metadata.
// Linux only (/proc).
//   bun bench/run-log.ts [--runs 100000] [--batch 18]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openStore } from "../src/store/open.ts";
import { sampleRun } from "../tests/helpers/run-record.ts";
import { cpuOf, mainThread, statsSpent, threadStats } from "./lib/cpu-time.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "100000" }, batch: { type: "string", default: "18" } } });
const RUNS = Number(values.runs);
const BATCH = Number(values.batch);

const dir = mkdtempSync(join(tmpdir(), "relay-runlog-bench-"));
const store = await openStore({ driver: "sqlite", path: join(dir, "relay.db") });
try {
  const write = async (n: number) => {
    for (let i = 0; i < n; i += BATCH) await store.insertRuns(Array.from({ length: Math.min(BATCH, n - i) }, () => sampleRun()));
  };
  await write(Math.min(20_000, RUNS)); // warm-up: JIT, worker start, table pages
  const before = threadStats(process.pid);
  const t0 = performance.now();
  await write(RUNS);
  // Commit what is still only journaled, so every run's cost is counted.
  await store.totals(0);
  const wallMs = performance.now() - t0;
  const d = cpuOf(statsSpent(threadStats(process.pid), before));
  const writer = d.get("Worker") ?? 0;
  console.log(
    `run log (SQLite file, batches of ${BATCH}): writer thread ${(writer / RUNS).toFixed(2)} µs CPU per run, ` +
      `calling thread ${(mainThread(d) / RUNS).toFixed(2)} µs, ${((wallMs * 1000 * BATCH) / RUNS).toFixed(1)} µs wall per batch ` +
      `(${RUNS.toLocaleString("en-US")} runs)`,
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
