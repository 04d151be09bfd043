// Issue 5's rule "the request path does no synchronous disk write", measured: the in-process stack
// (bench/lib/in-process.ts: the real app handler, the SQLite run log on its writer thread) serves a
// batch of requests, and the kernel's per-thread I/O accounting (/proc/<pid>/task/<tid>/io) says
// which threads wrote and how much of it went to storage. The request thread must send nothing to
// storage; the run-log writer thread, which appends each acknowledged run to its journal, must.
// The access log is not part of this stack: `relay start` writes it to stdout, once per event-loop
// turn (a pipe to journald under systemd). Linux only.
//   bun bench/request-io.ts [--requests 2000] [--model svc:auto] [--no-telemetry] [--no-limits] [--stream] [--vendor anthropic] [--json]
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { STACK_FLAGS, stackOptions, startInProcess } from "./lib/in-process.ts";

const { values } = parseArgs({
  options: {
    ...STACK_FLAGS,
    requests: { type: "string", default: "2000" },
    json: { type: "boolean", default: false },
  },
});
const REQUESTS = Number(values.requests);

interface ThreadIo {
  /** write-family system calls (eventfd wake-ups between threads count too). */
  writeCalls: number;
  /** Bytes sent to the storage layer. */
  storageBytes: number;
}

/** I/O counters of each thread of this process, keyed "request" for the main thread and by name otherwise. */
function threadIo(): Map<string, ThreadIo> {
  const out = new Map<string, ThreadIo>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    let io: string;
    let stat: string;
    try {
      io = readFileSync(`/proc/${process.pid}/task/${tid}/io`, "utf8");
      stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const field = counters(io);
    const key = Number(tid) === process.pid ? "request" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const prev = out.get(key) ?? { writeCalls: 0, storageBytes: 0 };
    out.set(key, { writeCalls: prev.writeCalls + (field.syscw ?? 0), storageBytes: prev.storageBytes + (field.write_bytes ?? 0) });
  }
  return out;
}

/** "name: value" lines of a /proc io file. */
function counters(io: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of io.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) out[line.slice(0, colon)] = Number(line.slice(colon + 1));
  }
  return out;
}

const relay = await startInProcess(stackOptions(values));
try {
  await relay.drive(2_000); // start-up writes (the store's files, the catalog) are not the request path's
  const before = threadIo();
  // Each answer waits for its run's acknowledgement, which comes after the journal append.
  await relay.drive(REQUESTS);
  const after = threadIo();
  const threads: Record<string, ThreadIo> = {};
  for (const [name, a] of after) {
    const b = before.get(name) ?? { writeCalls: 0, storageBytes: 0 };
    threads[name] = { writeCalls: a.writeCalls - b.writeCalls, storageBytes: a.storageBytes - b.storageBytes };
  }
  if (values.json) console.log(JSON.stringify({ requests: REQUESTS, threads }));
  else {
    console.log(`${relay.label}: I/O per thread over ${REQUESTS.toLocaleString("en-US")} requests`);
    for (const [name, t] of Object.entries(threads)) {
      if (t.writeCalls || t.storageBytes) console.log(`  ${name.padEnd(16)} ${String(t.writeCalls).padStart(7)} write calls  ${String(t.storageBytes).padStart(9)} bytes to storage`);
    }
  }
} finally {
  await relay.close();
}
process.exit(0);
