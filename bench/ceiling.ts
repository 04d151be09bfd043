// How close to the floor any gateway with Relay's guarantees can come on this
// runtime: the floor (bench/floor.ts), the skeleton (bench/skeleton.ts: parse,
// forward, read the answer, a durable run record, nothing else) and Relay with
// every feature on, driven by wrk in alternating slices behind one fake vendor.
// It prints each one's median throughput ratio to the floor and its CPU per
// request from /proc, so Relay's distance from the floor splits into the part
// no gateway here can skip (skeleton − floor) and Relay's own (Relay −
// skeleton). Not a gate; asserts nothing. Linux only (/proc).
//   bun bench/ceiling.ts [--cases a,b] [--rounds 5] [--seconds 3]
import { parseArgs } from "node:util";
import { CASES, checkOnce, type RatioCase } from "./lib/cases.ts";
import { mainThread, spent, threadTimes, total } from "./lib/cpu-time.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startFake, startFloor, startRelay, startSkeleton, type Target } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/suite.ts";
import { assertWrkInstalled, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "a,b" },
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "3" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = 50;

interface Tally {
  name: string;
  target: Target;
  requests: number;
  mainUs: number;
  allUs: number;
  rps: number[];
}

async function slice(t: Tally, c: RatioCase, call: RatioCase["relay"], durationSec: number, counted: boolean): Promise<void> {
  const before = threadTimes(t.target.child.pid);
  const r = await runWrk({ url: t.target.url + call.path, body: call.body, headers: call.headers, connections: CONNECTIONS, durationSec });
  if (r.errors) throw new Error(`case ${c.id}: ${r.errors} error answers from the ${t.name}: figures would be meaningless`);
  if (!counted) return;
  const d = spent(threadTimes(t.target.child.pid), before);
  t.requests += r.requests;
  t.mainUs += mainThread(d);
  t.allUs += total(d);
  t.rps.push(r.rps);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1]!;

function line(t: Tally, floor: Tally): string {
  const ratios = t.rps.map((v, i) => v / floor.rps[i]!);
  const ratio = t === floor ? "" : `ratio ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(" ")})`;
  const cpu = `${(t.allUs / t.requests).toFixed(1)} µs CPU/request (main thread ${(t.mainUs / t.requests).toFixed(1)})`;
  return `  ${t.name.padEnd(9)} ${Math.round(median(t.rps)).toLocaleString("en-US").padStart(7)} req/s  ${cpu.padEnd(44)} ${ratio}`;
}

assertWrkInstalled();
stopAllOnSignals();
try {
  for (const id of values.cases.split(",").map((s) => s.trim()) as Array<keyof typeof CASES>) {
    const c = CASES[id];
    if (!c) throw new Error(`unknown case ${id}`);
    if (c.vendor !== "openai") throw new Error(`case ${id}: the skeleton forwards OpenAI requests only`);
    const vendor = await startFake(c.vendor, { chunks: STREAM_CHUNKS });
    const [floor, skeleton, relay] = await Promise.all([startFloor(vendor.url), startSkeleton(vendor.url), startRelay({ openai: vendor.url, anthropic: vendor.url })]);
    try {
      await checkOnce(floor.url, c.floor, `case ${id} via the floor`);
      await checkOnce(skeleton.url, c.floor, `case ${id} via the skeleton`);
      await checkOnce(relay.url, c.relay, `case ${id} via relay`);
      const tallies: Array<[Tally, RatioCase["relay"]]> = [
        [{ name: "floor", target: floor, requests: 0, mainUs: 0, allUs: 0, rps: [] }, c.floor],
        [{ name: "skeleton", target: skeleton, requests: 0, mainUs: 0, allUs: 0, rps: [] }, c.floor],
        [{ name: "relay", target: relay, requests: 0, mainUs: 0, allUs: 0, rps: [] }, c.relay],
      ];
      for (const [t, call] of tallies) await slice(t, c, call, 2, false);
      for (let i = 0; i < ROUNDS; i++) for (const [t, call] of tallies) await slice(t, c, call, SECONDS, true);
      console.log(`${id}. ${c.title}: ${ROUNDS} rounds of ${SECONDS} s slices, ${CONNECTIONS} connections`);
      for (const [t] of tallies) console.log(line(t, tallies[0]![0]));
    } finally {
      await Promise.all([floor.stop(), skeleton.stop(), relay.stop(), vendor.stop()]);
    }
  }
} finally {
  await stopAll();
}
