// CPU time of a process's threads, read from /proc (Linux only): what the CPU
// benches use to say how many microseconds a request cost each process and thread.
import { readdirSync, readFileSync } from "node:fs";
import { runWrk, type LoadResult, type LoadSpec } from "./wrk.ts";

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** One thread's CPU in user space and in the kernel (µs), and how often it went to sleep (voluntary context switches). */
export interface ThreadStat {
  userUs: number;
  sysUs: number;
  sleeps: number;
}

/** Every thread of a process, summed by thread name. */
export function threadStats(pid: number): Map<string, ThreadStat> {
  const out = new Map<string, ThreadStat>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const sum = out.get(name) ?? { userUs: 0, sysUs: 0, sleeps: 0 };
    sum.userUs += Number(fields[11]) * TICK_US;
    sum.sysUs += Number(fields[12]) * TICK_US;
    sum.sleeps += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    out.set(name, sum);
  }
  return out;
}

/** Per-thread change between two readings of threadStats. */
export function statsSpent(after: Map<string, ThreadStat>, before: Map<string, ThreadStat>): Map<string, ThreadStat> {
  const d = new Map<string, ThreadStat>();
  for (const [k, v] of after) {
    const b = before.get(k) ?? { userUs: 0, sysUs: 0, sleeps: 0 };
    d.set(k, { userUs: v.userUs - b.userUs, sysUs: v.sysUs - b.sysUs, sleeps: v.sleeps - b.sleeps });
  }
  return d;
}

/** utime+stime of every thread of a process, summed by thread name, in µs. */
export function threadTimes(pid: number): Map<string, number> {
  return cpuOf(threadStats(pid));
}

/** The CPU (user + kernel) of each thread in a threadStats reading or difference. */
export const cpuOf = (stats: Map<string, ThreadStat>): Map<string, number> => new Map([...stats].map(([k, s]) => [k, s.userUs + s.sysUs]));

export const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** The main (JavaScript) thread of a Bun process: the thread named after the executable. */
export const mainThread = (m: Map<string, number>): number => m.get("bun") ?? m.get("bun.exe") ?? 0;

/** A warm-up run (none if warmSec is 0), then a measured one, with the CPU each listed process spent during the measured run (per thread; `stats` splits it further). */
export async function measuredLoad(
  spec: Omit<LoadSpec, "durationSec">,
  warmSec: number,
  durationSec: number,
  pids: number[],
): Promise<{ result: LoadResult; wallUs: number; spent: Array<Map<string, number>>; stats: Array<Map<string, ThreadStat>> }> {
  if (warmSec > 0) await runWrk({ ...spec, durationSec: warmSec });
  const before = pids.map(threadStats);
  const wall0 = performance.now();
  const result = await runWrk({ ...spec, durationSec });
  const wallUs = (performance.now() - wall0) * 1000;
  const stats = pids.map((pid, i) => statsSpent(threadStats(pid), before[i]!));
  return { result, wallUs, spent: stats.map(cpuOf), stats };
}

/** One process's throughput and CPU over a series of measured slices (bench/ab.ts, bench/ceiling.ts). */
export interface Tally {
  requests: number;
  mainUs: number;
  allUs: number;
  rps: number[];
}

export const newTally = (): Tally => ({ requests: 0, mainUs: 0, allUs: 0, rps: [] });

/** Measures one slice against one process (see measuredLoad) and adds it to its tally; any error answer throws. */
export async function tallySlice(tally: Tally, spec: Omit<LoadSpec, "durationSec">, warmSec: number, durationSec: number, pid: number): Promise<void> {
  const { result: r, spent } = await measuredLoad(spec, warmSec, durationSec, [pid]);
  if (r.errors) throw new Error(`${r.errors} error answers from ${spec.url}: figures would be meaningless`);
  const d = spent[0]!;
  tally.requests += r.requests;
  tally.mainUs += mainThread(d);
  tally.allUs += total(d);
  tally.rps.push(r.rps);
}
