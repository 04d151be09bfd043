// CPU cost of Relay's non-streaming request path, without sockets: the real
// app handler called 50 requests at a time with the vendor answered in-process
// (bench/lib/in-process.ts). It prints the request thread's CPU time per
// request (read from /proc, so the writer thread is counted apart), which is
// what caps throughput in the load bench. Linux only (/proc).
// --stream sends stream: true and the vendor answers the load bench's 20-chunk stream in one
// read (what loopback delivers); --vendor anthropic makes it an OpenAI → Anthropic translation
// (the model defaults to gpt-4o-mini, or claude-haiku-4-5 with --vendor anthropic).
//   bun bench/request-path.ts [--model svc:auto] [--requests 100000] [--no-telemetry] [--no-limits] [--stream] [--vendor anthropic]
import { parseArgs } from "node:util";
import { mainThread, threadTimes } from "./lib/cpu-time.ts";
import { STACK_FLAGS, stackOptions, startInProcess } from "./lib/in-process.ts";

const { values } = parseArgs({
  options: {
    ...STACK_FLAGS,
    requests: { type: "string", default: "100000" },
  },
});
const REQUESTS = Number(values.requests);
const relay = await startInProcess(stackOptions(values));

/** CPU µs of this process's main thread so far. */
const mainThreadCpuUs = (): number => mainThread(threadTimes(process.pid));

try {
  await relay.drive(Math.min(20_000, REQUESTS)); // JIT warm-up
  const cpu0 = mainThreadCpuUs();
  const all0 = process.cpuUsage();
  const t0 = performance.now();
  await relay.drive(REQUESTS);
  const wallUs = ((performance.now() - t0) * 1000) / REQUESTS;
  const mainUs = (mainThreadCpuUs() - cpu0) / REQUESTS;
  const all = process.cpuUsage(all0);
  const allUs = (all.user + all.system) / REQUESTS;
  console.log(
    `${relay.label}: ` +
      `request thread ${mainUs.toFixed(1)} µs CPU per request, all threads ${allUs.toFixed(1)} µs, wall ${wallUs.toFixed(1)} µs (${REQUESTS.toLocaleString("en-US")} requests, 50 at a time)`,
  );
} finally {
  await relay.close();
}
process.exit(0);
