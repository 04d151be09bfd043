// The workflow engine's cost (issue 39). Two figures, neither a gate; asserts only that runs succeed.
// 1. Step dispatch overhead: in this process, the portable router (createRouter, what the SDK's local
//    mode uses) in front of one fake OpenAI process answering at once; alternating rounds of N
//    single-step workflow runs through the engine (runWorkflow over routeCaller) and N direct
//    route() calls with the very request the engine built (captured from its first call). Calls are
//    sequential, so a round's time per call is latency; per-step overhead = engine − direct, and the
//    ratio engine/direct, as median and range over the paired rounds.
// 2. Concurrent triggered runs: `relay cloud` (bench/lib/stack.ts) with one pro team, Cloud features
//    on, and a deployed one-step workflow; --runs POST /api/v1/webhooks/trigger fired at once, then
//    the runs list polled until every run finished. Prints runs/s (first trigger to last run
//    finished) and the cloud process's RSS before, peak (VmHWM) and after.
//   bun bench/workflows.ts [--rounds 12] [--calls 1000] [--runs 1000]
import { parseArgs } from "node:util";
import { createRouter, defineWorkflow, routeCaller, runWorkflow, type Router } from "../src/index.ts";
import { median } from "./lib/median.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { relayCommand, startFake, startRelay, type Target } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/vendor-frames.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "12" },
    calls: { type: "string", default: "1000" },
    runs: { type: "string", default: "1000" },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const RUNS = Number(values.runs);
const STEP = { name: "answer", model: "openai:gpt-4o-mini", userPrompt: "Say hello to {{input.name}}." };
const DEFINITION = { name: "bench-one-step", steps: [STEP] };
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** µs per call of `n` sequential calls of `once`. */
async function timed(n: number, once: () => Promise<void>): Promise<number> {
  const start = Bun.nanoseconds();
  for (let i = 0; i < n; i++) await once();
  return (Bun.nanoseconds() - start) / 1_000 / n;
}

async function dispatchOverhead(vendorUrl: string): Promise<void> {
  const router: Router = createRouter({ config: { providers: { openai: { apiKey: "x", baseUrl: `${vendorUrl}/v1` } } }, env: {} });
  const workflow = defineWorkflow(DEFINITION);
  let captured: Parameters<Router["route"]>[0] | undefined;
  const call = routeCaller((c) => ((captured ??= c), router.route(c)));
  const input = { name: "bench" };
  const viaEngine = async () => {
    const result = await runWorkflow(workflow, input, { call });
    if (!result.success) throw new Error(`engine run failed: ${JSON.stringify(result.error)}`);
  };
  await viaEngine();
  // The engine's call without its signal (the run's own, already ended): a direct call has none either.
  const direct = { format: "openai" as const, request: captured!.request!, caller: captured!.caller };
  const viaRoute = async () => {
    const result = await router.route(direct);
    if (result.kind !== "answer") throw new Error(`route() failed: ${JSON.stringify(result)}`);
  };
  await timed(200, viaEngine);
  await timed(200, viaRoute); // warm-up: JIT and the vendor's keep-alive connections
  const [engine, plain] = [[] as number[], [] as number[]];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternating which goes first keeps a drift of the machine from favouring one side.
    const order: Array<[() => Promise<void>, number[]]> = i % 2 === 0 ? [[viaEngine, engine], [viaRoute, plain]] : [[viaRoute, plain], [viaEngine, engine]];
    for (const [once, out] of order) out.push(await timed(CALLS, once));
  }
  await router.close();
  const overhead = engine.map((e, i) => e - plain[i]!);
  const ratio = engine.map((e, i) => e / plain[i]!);
  console.log(`1. step dispatch, ${ROUNDS} paired rounds of ${CALLS} sequential calls, one fake OpenAI process answering at once`);
  console.log(`   direct route():          median ${median(plain).toFixed(1)} µs per call, range ${range(plain, 1)}`);
  console.log(`   one-step runWorkflow():  median ${median(engine).toFixed(1)} µs per run, range ${range(engine, 1)}`);
  console.log(`   overhead per step: median ${median(overhead).toFixed(1)} µs, range ${range(overhead, 1)}; ratio engine/direct: median ${median(ratio).toFixed(2)}, range ${range(ratio, 2)}`);
}

/** The process's resident set now, or its peak (VmHWM), in MB. */
async function memoryMb(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1]);
  return kb / 1024;
}

async function hosted(url: string, key: string, path: string, body?: unknown): Promise<any> {
  const init = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
  const res = await fetch(url + path, { ...init, headers: { "content-type": "application/json", "x-api-key": key } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Counts of the team's runs by status, read page by page from the runs list. */
async function runStatuses(url: string, key: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let offset = 0, total = 1; offset < total; offset += 100) {
    const page = await hosted(url, key, `/api/v1/webhooks/runs?limit=100&offset=${offset}`);
    total = page.total;
    for (const run of page.data as Array<{ status: string }>) counts[run.status] = (counts[run.status] ?? 0) + 1;
  }
  return counts;
}

async function triggeredRuns(vendor: Target): Promise<void> {
  let key = "";
  const prepare = async (env: Record<string, string>) => {
    const team = JSON.parse(await relayCommand(["cloud", "teams", "create", "--name", "bench-workflows", "--plan", "pro", "--json"], env)) as { api_key: string; team: { id: string } };
    await relayCommand(["cloud", "teams", "set-cloud", team.team.id, "on"], env);
    key = team.api_key;
  };
  const cloud = await startRelay({ openai: vendor.url, anthropic: vendor.url, command: "cloud", prepare });
  try {
    await hosted(cloud.url, key, "/api/v1/workflows", DEFINITION);
    const before = await memoryMb(cloud.child.pid, "VmRSS");
    const start = performance.now();
    const fire = () => hosted(cloud.url, key, "/api/v1/webhooks/trigger", { workflow: DEFINITION.name, input: { name: "bench" } });
    await Promise.all(Array.from({ length: RUNS }, fire));
    const accepted = performance.now() - start;
    let counts: Record<string, number> = {};
    while (((counts = await runStatuses(cloud.url, key)), (counts.succeeded ?? 0) + (counts.failed ?? 0) < RUNS)) await Bun.sleep(100);
    const seconds = (performance.now() - start) / 1000;
    const [peak, after] = [await memoryMb(cloud.child.pid, "VmHWM"), await memoryMb(cloud.child.pid, "VmRSS")];
    console.log(`2. ${RUNS} concurrent POST /api/v1/webhooks/trigger to relay cloud (SQLite), one-step workflow, fake vendor answering at once`);
    console.log(`   all accepted (202) in ${(accepted / 1000).toFixed(2)} s; all finished in ${seconds.toFixed(2)} s: ${(RUNS / seconds).toFixed(0)} runs/s; ${JSON.stringify(counts)}`);
    console.log(`   relay cloud RSS: before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB`);
    if (counts.failed) throw new Error(`${counts.failed} runs failed`);
  } finally {
    await cloud.stop();
  }
}

stopAllOnSignals();
try {
  const vendor = await startFake("openai", { chunks: STREAM_CHUNKS });
  try {
    await dispatchOverhead(vendor.url);
    await triggeredRuns(vendor);
  } finally {
    await vendor.stop();
  }
} finally {
  await stopAll();
}
