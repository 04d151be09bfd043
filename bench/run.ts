// Load benchmark (issue 5): Relay with every feature on against a bare Bun
// forward proxy (the floor), each in its own process, driven by wrk.
//   bun run bench                       # all cases, ~3-4 minutes
//   bun bench/run.ts --cases a,c        # a subset
//   bun bench/run.ts --cases a --cpu-prof /tmp/prof   # Relay under Bun's CPU profiler
//   bun bench/profile-summary.ts /tmp/prof/*.cpuprofile   # its functions ranked by samples
// Needs wrk on PATH (Debian: apt-get install -y wrk). Exits 0 when it ran, whatever the verdicts;
// bench/ci.ts is the gate.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CASES, checkOnce } from "./lib/cases.ts";
import { addedLatency, leakCheck, openStreams, type Outcome, type Timing } from "./lib/measure.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { formatTable, machineLine } from "./lib/report.ts";
import { startFake, startFloor, startRelay } from "./lib/stack.ts";
import { checkCases, progress, runRatioCases, startInstantStack, STREAM_CHUNKS } from "./lib/suite.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

// Five short rounds rather than three long ones: on a machine that drifts by ±30 % within minutes, a median of five pairs is steadier.
const TIMING: Timing = { warmSec: 2, measureSec: 3, connections: 50, rounds: 5 };
const SLOW = { latencyMs: 20, connections: 200, bars: { p50Ms: 0.5, p99Ms: 2 } };
/** Each open stream lasts 20 ms + 19 × 500 ms ≈ 10 s. */
const OPEN_STREAMS = { count: 1_000, chunkDelayMs: 500, settleSec: 5, bars: { allOpenWithinSec: 5, peakMb: 150, backWithinMb: 20 } };
const LEAK = { requests: 200_000, connections: 50, settleSec: 5, maxGrowthMb: 20 };
const ALL = ["a", "b", "c", "d", "e", "f", "g"];

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: ALL.join(",") },
    "cpu-prof": { type: "string" },
  },
});
const selected = new Set(values.cases.split(",").map((s) => s.trim()));
const unknown = [...selected].filter((s) => !ALL.includes(s));
if (unknown.length) {
  console.error(`unknown case(s) ${unknown.join(", ")}; choose from ${ALL.join(",")}`);
  process.exit(2);
}
const cpuProfDir = values["cpu-prof"] ? resolve(values["cpu-prof"]) : undefined;
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });

const nonStreaming = CASES.a.relay;
const streaming = CASES.b.relay;

async function instantVendorCases(): Promise<Outcome[]> {
  const ratioCases = (["a", "b", "c", "d"] as const).filter((id) => selected.has(id)).map((id) => CASES[id]);
  if (!ratioCases.length && !selected.has("g")) return [];
  const stack = await startInstantStack({ cpuProfDir });
  try {
    // The leak check sends case a's request, so that one is checked too.
    const checked = selected.has("g") && !ratioCases.includes(CASES.a) ? [...ratioCases, CASES.a] : ratioCases;
    await checkCases(checked, stack);
    const outcomes = await runRatioCases(ratioCases, stack, TIMING, (c) => c.target);
    if (selected.has("g")) {
      progress(`case g: ${LEAK.requests.toLocaleString("en-US")} requests`);
      outcomes.push(await leakCheck("g. leak check (non-streaming)", stack.relay, nonStreaming, LEAK));
    }
    return outcomes;
  } finally {
    await stack.stop();
  }
}

/** Cases e and f share a vendor that waits 20 ms before answering and 500 ms between stream chunks. */
async function slowVendorCases(): Promise<Outcome[]> {
  if (!selected.has("e") && !selected.has("f")) return [];
  const vendor = await startFake("openai", { latencyMs: SLOW.latencyMs, chunks: STREAM_CHUNKS, chunkDelayMs: OPEN_STREAMS.chunkDelayMs });
  const [floor, relay] = await Promise.all([startFloor(vendor.url), startRelay({ openai: vendor.url, anthropic: vendor.url, cpuProfDir })]);
  const outcomes: Outcome[] = [];
  try {
    // f first: its idle figure is then Relay's own baseline, not heap left over from e's load.
    if (selected.has("f")) {
      progress(`case f: ${OPEN_STREAMS.count} open streams`);
      outcomes.push(await openStreams(`f. ${OPEN_STREAMS.count} open streams`, relay, streaming, OPEN_STREAMS));
    }
    if (selected.has("e")) {
      await checkOnce(relay.url, nonStreaming, "case e via relay");
      await checkOnce(floor.url, nonStreaming, "case e via floor");
      progress("case e: floor and relay at 200 connections");
      const timing = { ...TIMING, connections: SLOW.connections };
      outcomes.push(await addedLatency(`e. ${SLOW.connections} conns, vendor ${SLOW.latencyMs} ms`, nonStreaming, floor.url, relay, timing, SLOW.bars));
    }
    return outcomes;
  } finally {
    await Promise.all([relay.stop(), floor.stop(), vendor.stop()]);
  }
}

const NOTES = [
  `Timing: floor and Relay run in alternating wrk slices (1 thread) of ${TIMING.measureSec} s, ${TIMING.rounds} of each after a ${TIMING.warmSec} s warm-up, ${TIMING.connections} connections unless stated; each row shows the round with the median Relay/floor ratio (all rounds in the verdict; e's verdict takes the medians over its rounds of the added p50 and p99). Fake vendors answer instantly with ${STREAM_CHUNKS}-chunk streams.`,
  "Relay: `bun src/server.ts start`, telemetry on, per-model rate limit and hourly/daily budgets set too high to trigger, cooldown on, access log on (default level info, written to a file).",
  `Targets (issue 5): relay/floor ≥ 0.8 non-streaming (a, d) and streaming passthrough (b), ≥ 0.6 translated streaming (c); e added latency p50 ≤ ${SLOW.bars.p50Ms} ms, p99 ≤ ${SLOW.bars.p99Ms} ms.`,
  CASES.c.note,
  CASES.d.note,
  `f: a separate Bun process opens ${OPEN_STREAMS.count} streams (~10 s each) at once; the RSS column is the peak. Targets: all open together (within ${OPEN_STREAMS.bars.allOpenWithinSec} s), peak ≤ ${OPEN_STREAMS.bars.peakMb} MB, back within ${OPEN_STREAMS.bars.backWithinMb} MB of idle.`,
  `g: the ${LEAK.maxGrowthMb} MB growth bar is this bench's own (the issue asks only for the figure); RSS column is after the settle period.`,
];

stopAllOnSignals();
let exitCode = 0;
try {
  assertWrkInstalled();
  console.log(await machineLine());
  const started = performance.now();
  const outcomes = [...(await instantVendorCases()), ...(await slowVendorCases())];
  // Cases run in the order that suits the processes (f before e); they are listed by letter.
  outcomes.sort((x, y) => x.rows[0].case.localeCompare(y.rows[0].case));
  console.log(`\n${formatTable(outcomes.flatMap((o) => o.rows))}\n`);
  for (const note of NOTES) console.log(`note: ${note}`);
  const misses = outcomes.filter((o) => !o.pass).length;
  console.log(`\n${outcomes.length - misses} of ${outcomes.length} targets met; ran in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  // Bun's .md ranks by sampled time, which charges idle gaps to the next sample: rank by samples instead.
  if (cpuProfDir) console.log(`Relay CPU profiles (.cpuprofile and .md) in ${cpuProfDir}; rank them with bun bench/profile-summary.ts ${cpuProfDir}/*.cpuprofile`);
} catch (e) {
  console.error(`bench aborted: ${(e as Error).message}`);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
