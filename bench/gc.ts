// Garbage collection under load: the floor and Relay with every feature on,
// behind the case's fake vendor, each run with BUN_JSC_logGC=1 so that
// JavaScriptCore logs every collection to a file of its own, and driven by wrk
// in alternating slices. For each process and heap
// (the main thread's, and a worker's: the run-log writer's) it prints the
// collections during the measured slices, their mean and longest
// stop-the-world pause, and the pause time per request; a young collection's
// pause stops every request in flight, so it is a part of the p99 at 200
// connections (case e) as well as CPU. Not a gate; asserts nothing.
//   bun bench/gc.ts [--cases a,b] [--rounds 3] [--seconds 3] [--connections 50]
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Call, casesNamed, checkOnce, type RatioCase } from "./lib/cases.ts";
import { parseGcLog, summarise } from "./lib/gc-log.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startFake, startFloor, startRelay, type Target } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/vendor-frames.ts";
import { assertWrkInstalled, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "a,b" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

interface Contender {
  name: "floor" | "relay";
  target: Target;
  /** What it is sent: the case's floor request, or its Relay request for Relay. */
  call: Call;
  log: string;
  /** The collection log written during the measured slices. */
  measured: string;
  requests: number;
}

/** Drives one contender for a slice; when counted, its log's growth during the slice is kept. */
async function slice(c: Contender, seconds: number, counted: boolean): Promise<void> {
  const from = statSync(c.log).size;
  const r = await runWrk({ url: c.target.url + c.call.path, body: c.call.body, headers: c.call.headers, connections: CONNECTIONS, durationSec: seconds });
  if (r.errors) throw new Error(`${r.errors} error answers from ${c.name}: figures would be meaningless`);
  if (!counted) return;
  c.measured += readFileSync(c.log).subarray(from).toString("utf8");
  c.requests += r.requests;
}

/** The heap that collected first: the main thread's (a worker starts later, on the first run-log write). */
const mainHeap = (log: string): string | undefined => /\[GC<(0x[0-9a-f]+)>/.exec(readFileSync(log, "utf8"))?.[1];

function report(c: Contender): void {
  const heaps = summarise(parseGcLog(c.measured));
  const main = mainHeap(c.log);
  const total = heaps.reduce((s, h) => s + h.pauseMs, 0);
  console.log(`  ${c.name.padEnd(9)} ${c.requests.toLocaleString("en-US")} requests, stop-the-world ${((total * 1000) / c.requests).toFixed(2)} µs per request`);
  for (const h of heaps) {
    const name = h.heap === main ? "main thread" : "worker";
    console.log(
      `    ${name.padEnd(12)} young ${String(h.eden).padStart(3)} (mean pause ${h.meanEdenPauseMs.toFixed(2)} ms, heap ${h.edenBeforeMb.toFixed(0)} → ${h.edenAfterMb.toFixed(0)} MB), ` +
        `full ${h.full}, longest pause ${h.maxPauseMs.toFixed(2)} ms, ${((h.pauseMs * 1000) / c.requests).toFixed(2)} µs per request`,
    );
  }
}

/** The case's fake vendor, the floor and Relay, each logging its collections to a file of its own, checked once before any load. */
async function startPair(c: RatioCase): Promise<{ contenders: Contender[]; stop(): Promise<void> }> {
  const vendor = await startFake(c.vendor, { chunks: STREAM_CHUNKS });
  const log = (name: string) => join(dir, `${c.id}-${name}.log`);
  const [floor, relay] = await Promise.all([
    startFloor(vendor.url, { gcLog: log("floor") }),
    startRelay({ openai: vendor.url, anthropic: vendor.url, gcLog: log("relay") }),
  ]);
  const contenders: Contender[] = [
    { name: "floor", target: floor, call: c.floor, log: log("floor"), measured: "", requests: 0 },
    { name: "relay", target: relay, call: c.relay, log: log("relay"), measured: "", requests: 0 },
  ];
  const stop = async (): Promise<void> => void (await Promise.all([floor.stop(), relay.stop(), vendor.stop()]));
  try {
    for (const one of contenders) await checkOnce(one.target.url, one.call, `case ${c.id} via the ${one.name}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { contenders, stop };
}

assertWrkInstalled();
stopAllOnSignals();
const dir = mkdtempSync(join(tmpdir(), "relay-gc-"));
try {
  for (const c of casesNamed(values.cases)) {
    const stack = await startPair(c);
    try {
      const { contenders } = stack;
      for (const one of contenders) await slice(one, 2, false);
      for (let i = 0; i < ROUNDS; i++) for (const one of contenders) await slice(one, SECONDS, true);
      console.log(`${c.id}. ${c.title}: ${ROUNDS} rounds of ${SECONDS} s slices, ${CONNECTIONS} connections`);
      for (const one of contenders) report(one);
    } finally {
      await stack.stop();
    }
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
