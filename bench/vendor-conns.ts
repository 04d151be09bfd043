// How often each proxy opens a new connection to the vendor under case e's
// load (200 connections, a vendor answering after 20 ms): the floor, the
// skeleton (bench/skeleton.ts) and Relay, one after the other behind one fake
// vendor. Bun's fetch keeps at most 64 idle keep-alive connections per process
// (not configurable in 1.4), so when more than 64 vendor calls finish before
// the next ones start, the surplus is closed and later calls connect again.
// Each close leaves a TIME-WAIT socket, counted with `ss` before and after a
// slice. Not a gate; asserts nothing. Linux only (iproute2's ss).
//   bun bench/vendor-conns.ts [--connections 200] [--latency-ms 20] [--seconds 4] [--rounds 2]
import { parseArgs } from "node:util";
import { CASES } from "./lib/cases.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startThreeWay, type Contender } from "./lib/three-way.ts";
import { assertWrkInstalled, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "200" },
    "latency-ms": { type: "string", default: "20" },
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "2" },
  },
});
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
// TIME-WAIT lasts 60 s on Linux: a run longer than that would see earlier sockets expire mid-count.
if (ROUNDS * 3 * (SECONDS + 1) > 50) {
  console.error("--rounds × 3 × (--seconds + 1) must stay under 50 s (TIME-WAIT sockets expire after 60 s)");
  process.exit(2);
}
if (!Bun.which("ss")) throw new Error("ss not found on PATH (Debian: apt-get install -y iproute2)");

/** Sockets in TIME-WAIT with the vendor's port at either end: connections to it that were closed. */
function closedConnections(port: string): number {
  const out = Bun.spawnSync(["ss", "-tanH", "state", "time-wait"]).stdout.toString();
  return out.split("\n").filter((l) => l.split(/\s+/).some((address) => address.endsWith(`:${port}`))).length;
}

assertWrkInstalled();
stopAllOnSignals();
const stack = await startThreeWay(CASES.a, { latencyMs: Number(values["latency-ms"]) });
const port = new URL(stack.vendor.url).port;
try {
  const spec = (one: Contender, durationSec: number) => ({ url: one.target.url + one.call.path, body: one.call.body, connections: CONNECTIONS, durationSec });
  for (const one of stack.contenders) await runWrk(spec(one, 1));
  console.log(`${CONNECTIONS} connections, vendor answering after ${values["latency-ms"]} ms, ${SECONDS} s slices`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const one of stack.contenders) {
      const before = closedConnections(port);
      const r = await runWrk(spec(one, SECONDS));
      const closed = closedConnections(port) - before;
      console.log(
        `  round ${round}  ${one.name.padEnd(9)} ${Math.round(r.rps).toLocaleString("en-US").padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  ` +
          `vendor connections closed ${closed.toLocaleString("en-US").padStart(6)}, ${((closed / r.requests) * 1000).toFixed(0).padStart(4)} per 1,000 requests` +
          (r.errors ? `  ${r.errors} ERRORS` : ""),
      );
    }
  }
} finally {
  await stopAll();
}
