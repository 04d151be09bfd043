// CPU per request, per process and per thread, under real load: the same
// stack as `bun run bench` (fake vendor, floor, Relay with every feature on,
// wrk), but instead of a throughput ratio it prints how many microseconds of
// CPU each process spent per request, read from /proc before and after a
// fixed wrk run. Throughput on a shared 2-core machine is set by the sum of
// these, so this says where Relay's extra cost is (request thread, writer
// thread, Bun's own threads) and whether the machine was saturated. The
// harness row is this process, which must stay near 0 in both columns. Each
// thread's share is split into user space and kernel, with how often per request
// it went to sleep (voluntary context switches): a thread that sleeps must be
// woken, which costs this VM tens of microseconds (bench/HISTORY.md, 24th pass).
// Linux only (/proc).
//   bun bench/cpu.ts [--cases a,b,c,d] [--seconds 5] [--connections 50]
import { parseArgs } from "node:util";
import { casesNamed, type Call } from "./lib/cases.ts";
import { measuredLoad, total } from "./lib/cpu-time.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { checkCases, startInstantStack } from "./lib/suite.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "a,b,c,d" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

async function measure(label: string, base: string, call: Call, pids: Record<string, number>): Promise<void> {
  const spec = { url: base + call.path, body: call.body, headers: call.headers, connections: CONNECTIONS };
  const names = Object.keys(pids);
  const { result: r, wallUs, spent, stats } = await measuredLoad(spec, 2, SECONDS, Object.values(pids));
  const parts: string[] = [];
  let busy = 0;
  const perReq = (n: number) => (n / r.requests).toFixed(1);
  for (const [i, name] of names.entries()) {
    const all = total(spent[i]!);
    busy += all;
    const threads = [...stats[i]!]
      .map(([t, s]) => ({ t, s, cpu: s.userUs + s.sysUs }))
      .filter(({ cpu }) => cpu / r.requests >= 0.5)
      .sort((x, y) => y.cpu - x.cpu)
      .map(({ t, s, cpu }) => `${t} ${perReq(cpu)} = ${perReq(s.userUs)} user + ${perReq(s.sysUs)} kernel, ${(s.sleeps / r.requests).toFixed(2)} sleeps`)
      .join("; ");
    parts.push(`  ${name.padEnd(8)} ${perReq(all).padStart(6)} µs/req  (${threads})`);
  }
  console.log(`${label}: ${Math.round(r.rps)} req/s, errors ${r.errors}, machine busy ${((busy / wallUs / 2) * 100).toFixed(0)}% of 2 cores (wrk not counted)`);
  for (const p of parts) console.log(p);
}

assertWrkInstalled();
stopAllOnSignals();
const stack = await startInstantStack();
try {
  const cases = casesNamed(values.cases);
  await checkCases(cases, stack);
  for (const c of cases) {
    const vendorPid = stack.vendors[c.vendor].child.pid;
    await measure(`${c.id} floor`, stack.floors[c.vendor].url, c.floor, { vendor: vendorPid, proxy: stack.floors[c.vendor].child.pid, harness: process.pid });
    await measure(`${c.id} relay`, stack.relay.url, c.relay, { vendor: vendorPid, proxy: stack.relay.child.pid, harness: process.pid });
  }
} finally {
  await stack.stop();
  await stopAll();
}
