// Before/after on this machine: two Relay checkouts (this one and --base, e.g. a
// `git worktree` of an older commit sharing this node_modules) behind the same
// fake vendor, each with bench/run.ts's configuration, driven by wrk in
// alternating slices. A shared 2-core machine drifts by ±30 % within minutes, so
// only paired slices compare: it prints the median of the per-round throughput
// ratios (this/base) and each tree's CPU per request from /proc (main thread and
// all threads). Not a gate; asserts nothing.
//   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
//   bun bench/ab.ts --base /tmp/base [--cases a,b,c,d] [--rounds 6] [--seconds 2]
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CASES, checkOnce } from "./lib/cases.ts";
import { mainThread, measuredLoad, total } from "./lib/cpu-time.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startFake, startRelay, type Target } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/suite.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    cases: { type: "string", default: "a,b,c,d" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "2" },
  },
});
if (!values.base || !existsSync(join(values.base, "src/server.ts"))) {
  console.error("--base <checkout of Relay> is required (see the header of bench/ab.ts)");
  process.exit(2);
}
const base = resolve(values.base);
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = 50;

interface Tally {
  requests: number;
  mainUs: number;
  allUs: number;
  rps: number[];
}

async function slice(target: Target, call: (typeof CASES)["a"]["relay"], tally: Tally): Promise<void> {
  const spec = { url: target.url + call.path, body: call.body, headers: call.headers, connections: CONNECTIONS };
  const { result: r, spent } = await measuredLoad(spec, 1, SECONDS, [target.child.pid]);
  if (r.errors) throw new Error(`${r.errors} error answers from ${target.url}: figures would be meaningless`);
  const d = spent[0]!;
  tally.requests += r.requests;
  tally.mainUs += mainThread(d);
  tally.allUs += total(d);
  tally.rps.push(r.rps);
}

const perRequest = (t: Tally) => `main ${(t.mainUs / t.requests).toFixed(1)} µs, all threads ${(t.allUs / t.requests).toFixed(1)} µs per request`;

assertWrkInstalled();
stopAllOnSignals();
try {
  for (const id of values.cases.split(",").map((s) => s.trim()) as Array<keyof typeof CASES>) {
    const c = CASES[id];
    if (!c) throw new Error(`unknown case ${id}`);
    const vendor = await startFake(c.vendor, { chunks: STREAM_CHUNKS });
    const [mine, theirs] = await Promise.all([startRelay({ openai: vendor.url, anthropic: vendor.url }), startRelay({ openai: vendor.url, anthropic: vendor.url, root: base })]);
    try {
      await checkOnce(mine.url, c.relay, `case ${id} via this checkout`);
      await checkOnce(theirs.url, c.relay, `case ${id} via ${base}`);
      const now: Tally = { requests: 0, mainUs: 0, allUs: 0, rps: [] };
      const was: Tally = { requests: 0, mainUs: 0, allUs: 0, rps: [] };
      for (let i = 0; i < ROUNDS; i++) {
        await slice(theirs, c.relay, was);
        await slice(mine, c.relay, now);
      }
      const ratios = now.rps.map((v, i) => v / was.rps[i]!).sort((a, b) => a - b);
      console.log(`${id}. ${c.title}: this/base throughput, median of ${ROUNDS} paired rounds ${ratios[(ratios.length - 1) >> 1]!.toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(" ")})`);
      console.log(`   base: ${perRequest(was)}`);
      console.log(`   this: ${perRequest(now)}`);
    } finally {
      await Promise.all([mine.stop(), theirs.stop(), vendor.stop()]);
    }
  }
} finally {
  await stopAll();
}
