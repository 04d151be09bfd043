// Start-up benchmark of the compiled binary: time from spawn to the first
// 200 from /health, and resident memory once idle. Prints figures against the
// targets; a miss is reported, not turned into a failing exit code. Then the
// first chat requests after a start, with the bench's every-feature config,
// against a fake vendor answering at once and one answering after 50 ms: what
// Relay's lazily started threads and caches cost the first client.
//   bun bench/startup.ts [runs] [binary]   (binary: another build to compare, e.g. an older tree's dist/relay)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CASES } from "./lib/cases.ts";
import { stopAll } from "./lib/procs.ts";
import { BENCH_CONFIG, startFake } from "./lib/stack.ts";

const REPO = resolve(import.meta.dir, "..");
const BINARY = resolve(process.argv[3] ?? join(REPO, "dist/relay"));
const RUNS = Number(process.argv[2] ?? 10);
const TARGET_FIRST_200_MS = 60;
const TARGET_IDLE_RSS_MB = 60;
/** Idle means start-up work (plugin load, migrations, first request) has settled. */
const IDLE_AFTER_MS = 500;
const GIVE_UP_MS = 10_000;

async function buildIfMissing(): Promise<void> {
  if (existsSync(BINARY)) return;
  if (process.argv[3] !== undefined) throw new Error(`${BINARY} does not exist`);
  console.log("dist/relay missing; building it...");
  const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: REPO, stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) throw new Error(`build failed with exit code ${build.exitCode}`);
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

interface Sample {
  first200Ms: number;
  idleRssMb: number;
}

interface ChatSample {
  /** The first chat request's round trip, ms; then the second's. */
  firstMs: number;
  secondMs: number;
}

/** One spawn of the binary: with `vendor` (the fake OpenAI origin), the bench's every-feature config and two timed chat requests once idle. */
async function once(vendor?: string): Promise<Sample & Partial<ChatSample>> {
  const home = mkdtempSync(join(tmpdir(), "relay-bench-startup-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", RELAY_HOME: home };
  if (vendor) {
    env.RELAY_CONFIG = join(home, "config.json");
    writeFileSync(env.RELAY_CONFIG, JSON.stringify(BENCH_CONFIG));
    Object.assign(env, { OPENAI_BASE_URL: `${vendor}/v1`, OPENAI_API_KEY: "x" });
  }
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "start", "--port", String(port), "--log-level", "warn"], { env, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  try {
    let first200Ms: number | undefined;
    while (first200Ms === undefined) {
      if (proc.exitCode !== null) throw new Error(`relay exited with ${proc.exitCode} before answering`);
      if (performance.now() - started > GIVE_UP_MS) throw new Error(`no 200 from /health within ${GIVE_UP_MS} ms`);
      const ok = await fetch(`${base}/health`).then((r) => r.status === 200, () => false);
      if (ok) first200Ms = performance.now() - started;
      else await Bun.sleep(1);
    }
    await Bun.sleep(IDLE_AFTER_MS);
    const sample = { first200Ms, idleRssMb: rssMb(proc.pid) };
    if (!vendor) return sample;
    return { ...sample, firstMs: await timedChat(base), secondMs: await timedChat(base) };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(home, { recursive: true, force: true });
  }
}

/** Case a's request, timed from send to the last byte of a successful answer. */
async function timedChat(base: string): Promise<number> {
  const call = CASES.a.relay;
  const t0 = performance.now();
  const res = await fetch(base + call.path, { method: "POST", headers: { "content-type": "application/json" }, body: call.body });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !text.includes('"choices"')) throw new Error(`chat request failed: ${res.status} ${text.slice(0, 200)}`);
  return ms;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

await buildIfMissing();
const samples: Sample[] = [];
for (let i = 0; i < RUNS; i++) samples.push(await once());

const times = samples.map((s) => s.first200Ms).sort((a, b) => a - b);
const rss = samples.map((s) => s.idleRssMb).sort((a, b) => a - b);
const medianTime = percentile(times, 50);
const medianRss = percentile(rss, 50);
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

console.log(`\nrelay start-up, ${RUNS} runs of ${BINARY}\n`);
console.table([
  { metric: "spawn → first 200 /health, median (ms)", value: medianTime.toFixed(1), target: `< ${TARGET_FIRST_200_MS}`, result: verdict(medianTime < TARGET_FIRST_200_MS) },
  { metric: "spawn → first 200 /health, p90 (ms)", value: percentile(times, 90).toFixed(1), target: "", result: "" },
  { metric: "spawn → first 200 /health, min (ms)", value: times[0]!.toFixed(1), target: "", result: "" },
  { metric: `idle RSS after ${IDLE_AFTER_MS} ms, median (MB)`, value: medianRss.toFixed(1), target: `< ${TARGET_IDLE_RSS_MB}`, result: verdict(medianRss < TARGET_IDLE_RSS_MB) },
]);

const chatRows = [];
for (const latencyMs of [0, 50]) {
  const fake = await startFake("openai", { latencyMs, chunks: 20 });
  const chats: ChatSample[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const s = await once(fake.url);
      chats.push({ firstMs: s.firstMs!, secondMs: s.secondMs! });
    }
  } finally {
    await stopAll();
  }
  const first = chats.map((c) => c.firstMs).sort((a, b) => a - b);
  const second = chats.map((c) => c.secondMs).sort((a, b) => a - b);
  chatRows.push({
    vendor: latencyMs ? `answers after ${latencyMs} ms` : "answers at once",
    "first request, median (ms)": percentile(first, 50).toFixed(1),
    "first, min–max": `${first[0]!.toFixed(1)}–${first.at(-1)!.toFixed(1)}`,
    "second request, median (ms)": percentile(second, 50).toFixed(1),
  });
}
console.log(`\nfirst chat requests after a start (${RUNS} spawns per vendor; telemetry, limits and budgets on, ${IDLE_AFTER_MS} ms after the first /health)\n`);
console.table(chatRows);
