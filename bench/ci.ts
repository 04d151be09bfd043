// Short load bench for CI (~50 s): cases a, b and c of bench/run.ts with short
// runs, plus a small memory-growth sanity check. Prints the same table; exits
// non-zero only on a gross regression — a ratio below half its issue-5 target,
// any error answer under load, or runaway memory growth — since short runs on
// a shared machine are too noisy to hold the real targets.
//   bun bench/ci.ts
import { CASES } from "./lib/cases.ts";
import { leakCheck, type Timing } from "./lib/measure.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { formatTable, machineLine } from "./lib/report.ts";
import { checkCases, progress, runRatioCases, startInstantStack } from "./lib/suite.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

const TIMING: Timing = { warmSec: 1, measureSec: 3, connections: 50 };
const GROSS_SHARE = 0.5;
// Over only ~20k requests RSS mostly tracks when Bun returns heap to the OS (±60 MB seen
// between runs), so this bar catches only a gross leak (≳ 5 KB kept per request).
const LEAK = { requests: 20_000, connections: 50, settleSec: 5, maxGrowthMb: 100 };

stopAllOnSignals();
let exitCode = 0;
try {
  assertWrkInstalled();
  console.log(await machineLine());
  const started = performance.now();
  const cases = [CASES.a, CASES.b, CASES.c];
  const stack = await startInstantStack();
  await checkCases(cases, stack);
  const outcomes = await runRatioCases(cases, stack, TIMING, (c) => c.target * GROSS_SHARE);
  progress(`memory sanity: ${LEAK.requests.toLocaleString("en-US")} requests`);
  outcomes.push(await leakCheck("memory growth (non-streaming)", stack.relay, CASES.a.relay, LEAK));
  await stack.stop();

  console.log(`\n${formatTable(outcomes.flatMap((o) => o.rows))}\n`);
  console.log(`note: bars are gross-regression bars: half the issue-5 targets (${cases.map((c) => `${c.id} ${c.target}`).join(", ")}); bun run bench measures the real ones.`);
  const misses = outcomes.filter((o) => !o.pass).length;
  console.log(`${misses ? `FAIL: ${misses} gross regression(s)` : "OK: no gross regression"}; ran in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  exitCode = misses ? 1 : 0;
} catch (e) {
  console.error(`bench aborted: ${(e as Error).message}`);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
