// How close to the floor any gateway with Relay's guarantees can come on this
// runtime: the floor (bench/floor.ts), the skeleton (bench/skeleton.ts: parse,
// forward, read the answer, a durable run record, nothing else), the skeleton
// with the features every case switches on (--features: limits, budgets,
// cooldown, Relay's answer headers and access log, with Relay's own modules)
// and Relay with every feature on, driven by wrk in alternating slices behind
// one fake vendor. It prints each one's median throughput ratio to the floor
// and its CPU per request from /proc, so Relay's distance from the floor
// splits into the part no gateway here can skip (skeleton − floor), what the
// features cost (features − skeleton) and Relay's general pipeline (Relay −
// features: routing, request decoding, stream outcome tracking, the run's
// bookkeeping). Not a gate; asserts nothing. Linux only (/proc).
//   bun bench/ceiling.ts [--cases a,b] [--rounds 5] [--seconds 3]
import { parseArgs } from "node:util";
import { casesNamed } from "./lib/cases.ts";
import { newTally, tallySlice, type Tally } from "./lib/cpu-time.ts";
import { median } from "./lib/median.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startThreeWay, type Contender as Started } from "./lib/three-way.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

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

interface Contender extends Started {
  tally: Tally;
}

/** A slice of wrk against one contender; the warm-up slices (counted: false) are not tallied. */
async function slice(c: Contender, durationSec: number, counted: boolean): Promise<void> {
  const spec = { url: c.target.url + c.call.path, body: c.call.body, headers: c.call.headers, connections: CONNECTIONS };
  await tallySlice(counted ? c.tally : newTally(), spec, 0, durationSec, c.target.child.pid);
}

function line(c: Contender, floor: Contender): string {
  const t = c.tally;
  const ratios = t.rps.map((v, i) => v / floor.tally.rps[i]!);
  const ratio = c === floor ? "" : `ratio ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(" ")})`;
  const cpu = `${(t.allUs / t.requests).toFixed(1)} µs CPU/request (main thread ${(t.mainUs / t.requests).toFixed(1)})`;
  return `  ${c.name.padEnd(9)} ${Math.round(median(t.rps)).toLocaleString("en-US").padStart(7)} req/s  ${cpu.padEnd(44)} ${ratio}`;
}

assertWrkInstalled();
stopAllOnSignals();
try {
  for (const c of casesNamed(values.cases)) {
    const stack = await startThreeWay(c, { features: true });
    try {
      const contenders: Contender[] = stack.contenders.map((one) => ({ ...one, tally: newTally() }));
      for (const one of contenders) await slice(one, 2, false);
      for (let i = 0; i < ROUNDS; i++) for (const one of contenders) await slice(one, SECONDS, true);
      console.log(`${c.id}. ${c.title}: ${ROUNDS} rounds of ${SECONDS} s slices, ${CONNECTIONS} connections`);
      for (const one of contenders) console.log(line(one, contenders[0]!));
    } finally {
      await stack.stop();
    }
  }
} finally {
  await stopAll();
}
