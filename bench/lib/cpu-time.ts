// CPU time of a process's threads, read from /proc (Linux only): what bench/ab.ts
// uses to say how many microseconds a request cost each tree's process and main thread.
import { readdirSync, readFileSync } from "node:fs";
import { runWrk, type LoadResult, type LoadSpec } from "./wrk.ts";

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** CPU (user + kernel, µs) of every thread of a process, summed by thread name. */
function threadTimes(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_US);
  }
  return out;
}

const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** The main (JavaScript) thread of a Bun process: the thread named after the executable. */
const mainThread = (m: Map<string, number>): number => m.get("bun") ?? m.get("bun.exe") ?? 0;

/** A warm-up run (none if warmSec is 0), then a measured one, with the CPU each thread of the process spent during the measured run. */
async function measuredLoad(spec: Omit<LoadSpec, "durationSec">, warmSec: number, durationSec: number, pid: number): Promise<{ result: LoadResult; spent: Map<string, number> }> {
  if (warmSec > 0) await runWrk({ ...spec, durationSec: warmSec });
  const before = threadTimes(pid);
  const result = await runWrk({ ...spec, durationSec });
  const spent = new Map([...threadTimes(pid)].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
  return { result, spent };
}

/** One process's throughput and CPU over a series of measured slices (bench/ab.ts). */
export interface Tally {
  requests: number;
  mainUs: number;
  allUs: number;
  rps: number[];
}

export const newTally = (): Tally => ({ requests: 0, mainUs: 0, allUs: 0, rps: [] });

/** Measures one slice against one process (see measuredLoad) and adds it to its tally; any error answer throws. */
export async function tallySlice(tally: Tally, spec: Omit<LoadSpec, "durationSec">, warmSec: number, durationSec: number, pid: number): Promise<void> {
  const { result: r, spent } = await measuredLoad(spec, warmSec, durationSec, pid);
  if (r.errors) throw new Error(`${r.errors} error answers from ${spec.url}: figures would be meaningless`);
  tally.requests += r.requests;
  tally.mainUs += mainThread(spent);
  tally.allUs += total(spent);
  tally.rps.push(r.rps);
}
