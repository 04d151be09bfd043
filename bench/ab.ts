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
import { casesNamed, checkOnce, type Call } from "./lib/cases.ts";
import { newTally, tallySlice, type Tally } from "./lib/cpu-time.ts";
import { median } from "./lib/median.ts";
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

const slice = (target: Target, call: Call, tally: Tally): Promise<void> =>
  tallySlice(tally, { url: target.url + call.path, body: call.body, headers: call.headers, connections: CONNECTIONS }, 1, SECONDS, target.child.pid);

const perRequest = (t: Tally) => `main ${(t.mainUs / t.requests).toFixed(1)} µs, all threads ${(t.allUs / t.requests).toFixed(1)} µs per request`;

assertWrkInstalled();
stopAllOnSignals();
try {
  for (const c of casesNamed(values.cases)) {
    const vendor = await startFake(c.vendor, { chunks: STREAM_CHUNKS });
    const [mine, theirs] = await Promise.all([startRelay({ openai: vendor.url, anthropic: vendor.url }), startRelay({ openai: vendor.url, anthropic: vendor.url, root: base })]);
    try {
      await checkOnce(mine.url, c.relay, `case ${c.id} via this checkout`);
      await checkOnce(theirs.url, c.relay, `case ${c.id} via ${base}`);
      const now = newTally();
      const was = newTally();
      for (let i = 0; i < ROUNDS; i++) {
        await slice(theirs, c.relay, was);
        await slice(mine, c.relay, now);
      }
      const ratios = now.rps.map((v, i) => v / was.rps[i]!).sort((a, b) => a - b);
      console.log(`${c.id}. ${c.title}: this/base throughput, median of ${ROUNDS} paired rounds ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(" ")})`);
      console.log(`   base: ${perRequest(was)}`);
      console.log(`   this: ${perRequest(now)}`);
    } finally {
      await Promise.all([mine.stop(), theirs.stop(), vendor.stop()]);
    }
  }
} finally {
  await stopAll();
}
