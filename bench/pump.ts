// How close any gateway that reads a stream can get to the floor on this runtime:
// the floor (bench/floor.ts, the vendor's stream piped natively) against the same
// proxy with --tap (the stream read in JavaScript, decoded, and written to a
// direct response stream, with nothing else done), on case b's 20-chunk stream,
// in alternating wrk slices. Prints each round's requests/s and CPU per request
// of both proxies, and the median ratio tap/floor: the ceiling for case b's
// Relay/floor ratio, since Relay must read the stream to log its usage.
//   bun bench/pump.ts [--rounds 5] [--seconds 3]
import { parseArgs } from "node:util";
import { CASES } from "./lib/cases.ts";
import { mainThread, measuredLoad, total } from "./lib/cpu-time.ts";
import { median } from "./lib/median.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { startFake, startFloor } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/suite.ts";
import { assertWrkInstalled } from "./lib/wrk.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, seconds: { type: "string", default: "3" } } });
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);

assertWrkInstalled();
stopAllOnSignals();
try {
  const vendor = await startFake("openai", { chunks: STREAM_CHUNKS });
  const floor = await startFloor(vendor.url);
  const tap = await startFloor(vendor.url, { tap: true });
  const call = CASES.b.floor;
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const rps: number[] = [];
    for (const [name, target] of [["floor", floor], ["tap", tap]] as const) {
      const spec = { url: target.url + call.path, body: call.body, headers: call.headers, connections: 50 };
      const { result, spent } = await measuredLoad(spec, 1, SECONDS, [target.child.pid]);
      const d = spent[0]!;
      rps.push(result.rps);
      console.log(`round ${round} ${name.padEnd(5)} ${Math.round(result.rps)} req/s, errors ${result.errors}, ${(total(d) / result.requests).toFixed(1)} µs CPU per request (main thread ${(mainThread(d) / result.requests).toFixed(1)})`);
    }
    ratios.push(rps[1]! / rps[0]!);
  }
  console.log(`tap/floor throughput, median of ${ROUNDS} rounds: ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(" ")})`);
} finally {
  await stopAll();
}
