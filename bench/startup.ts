// Start-up benchmark of the compiled binary: time from spawn to the first
// 200 from /health, and resident memory once idle. Prints figures against the
// targets; a miss is reported, not turned into a failing exit code.
//   bun bench/startup.ts [runs]
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "..");
const BINARY = join(REPO, "dist/relay");
const RUNS = Number(process.argv[2] ?? 10);
const TARGET_FIRST_200_MS = 60;
const TARGET_IDLE_RSS_MB = 60;
/** Idle means start-up work (plugin load, migrations, first request) has settled. */
const IDLE_AFTER_MS = 500;
const GIVE_UP_MS = 10_000;

async function buildIfMissing(): Promise<void> {
  if (existsSync(BINARY)) return;
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

async function once(): Promise<Sample> {
  const home = mkdtempSync(join(tmpdir(), "relay-bench-startup-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health`;
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "start", "--port", String(port), "--log-level", "warn"], {
    env: { PATH: process.env.PATH ?? "", RELAY_HOME: home },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    let first200Ms: number | undefined;
    while (first200Ms === undefined) {
      if (proc.exitCode !== null) throw new Error(`relay exited with ${proc.exitCode} before answering`);
      if (performance.now() - started > GIVE_UP_MS) throw new Error(`no 200 from /health within ${GIVE_UP_MS} ms`);
      const ok = await fetch(url).then((r) => r.status === 200, () => false);
      if (ok) first200Ms = performance.now() - started;
      else await Bun.sleep(1);
    }
    await Bun.sleep(IDLE_AFTER_MS);
    return { first200Ms, idleRssMb: rssMb(proc.pid) };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(home, { recursive: true, force: true });
  }
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
