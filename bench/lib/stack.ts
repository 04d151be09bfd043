// Starts the three kinds of process a load case needs, each in its own
// process so they never share an event loop: a fake vendor, the floor proxy
// and Relay itself (the real CLI entry, configured with every feature on).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUN, spawnChild, type Child } from "./procs.ts";

const ROOT = resolve(import.meta.dir, "../..");
const READY_TIMEOUT_MS = 20_000;

export interface Target {
  readonly url: string;
  readonly child: Child;
  stop(): Promise<void>;
}

export interface FakeOptions {
  latencyMs?: number;
  chunks: number;
  chunkDelayMs?: number;
}

export async function startFake(kind: "openai" | "anthropic", opts: FakeOptions): Promise<Target> {
  const args = ["--kind", kind, "--port", "0", "--latency-ms", `${opts.latencyMs ?? 0}`, "--chunks", `${opts.chunks}`, "--chunk-delay-ms", `${opts.chunkDelayMs ?? 0}`];
  return listening(spawnChild(`fake-${kind}`, [BUN, join(ROOT, "tests/fakes/serve.ts"), ...args]));
}

/** `gcLog`: the process logs every garbage collection (BUN_JSC_logGC=1) to this file (bench/gc.ts). */
export interface GcLogOption {
  gcLog?: string;
}

const gcLogging = (opts: GcLogOption): [Record<string, string>, { stderrPath?: string }] =>
  opts.gcLog === undefined ? [{}, {}] : [{ BUN_JSC_logGC: "1" }, { stderrPath: opts.gcLog }];

export async function startFloor(upstream: string, opts: GcLogOption = {}): Promise<Target> {
  return listening(spawnChild("floor", [BUN, join(ROOT, "bench/floor.ts"), "--upstream", upstream], ...gcLogging(opts)));
}

async function listening(child: Child): Promise<Target> {
  const line = await child.lineWith("LISTENING ", READY_TIMEOUT_MS);
  return { url: line.slice(line.indexOf("LISTENING ") + 10).trim(), child, stop: () => child.stop() };
}

export interface RelayOptions extends GcLogOption {
  /** Fake OpenAI origin (Relay gets `<origin>/v1` as its base URL). */
  openai: string;
  /** Fake Anthropic origin. */
  anthropic: string;
  /** When set, Relay runs under Bun's sampling profiler and writes a .cpuprofile and a markdown summary here on exit. */
  cpuProfDir?: string;
  /** Checkout whose src/server.ts is started (default: this one); bench/ab.ts compares two. */
  root?: string;
  /** `cloud`: the hosted listener (`relay cloud`) instead of the proxy (`relay start`); bench/hosted.ts compares the two. */
  command?: "start" | "cloud";
  /** Runs before the listener starts, with the environment it will have (its home and store): e.g. `relay cloud teams create` through relayCommand. */
  prepare?: (env: Record<string, string>) => Promise<void>;
}

/**
 * Every feature on, none able to interfere: telemetry writes each run to
 * SQLite, the access log writes a line per request (the default level, info),
 * the rate limiter and both budgets are checked on every request but set too
 * high to trigger, cooldown keeps its defaults, and `svc:auto` routes to a
 * model the fake serves.
 */
export const BENCH_CONFIG = {
  telemetry: { enabled: true },
  limits: { rpmDefault: 100_000_000, hourlyUsd: 1e9, dailyUsd: 1e9 },
  routing: {
    strategies: { complexity: { tiers: { simple: "gpt-4o-mini", moderate: "gpt-4o-mini", complex: "gpt-4o-mini" } } },
  },
};

export async function startRelay(opts: RelayOptions): Promise<Target> {
  const home = mkdtempSync(join(tmpdir(), "relay-bench-"));
  const config = join(home, "config.json");
  writeFileSync(config, JSON.stringify(BENCH_CONFIG));
  const port = await freePort();
  const profiler = opts.cpuProfDir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
  const [gcEnv, gcOutput] = gcLogging(opts);
  const env = {
    RELAY_HOME: home,
    RELAY_CONFIG: config,
    RELAY_DATA_DIR: join(home, "data"),
    OPENAI_BASE_URL: `${opts.openai}/v1`,
    OPENAI_API_KEY: "x",
    ANTHROPIC_BASE_URL: opts.anthropic,
    ANTHROPIC_API_KEY: "x",
    // As deploy/relay.service and `npm start` run it: Bun otherwise caps outgoing fetches at 256.
    BUN_CONFIG_MAX_HTTP_REQUESTS: "4096",
  };
  await opts.prepare?.(env);
  const child = spawnChild("relay", [BUN, ...profiler, join(opts.root ?? ROOT, "src/server.ts"), opts.command ?? "start", "--port", `${port}`], { ...gcEnv, ...env }, gcOutput);
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilAnswering(`${url}/health`, child);
  } catch (e) {
    await child.stop();
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  return {
    url,
    child,
    async stop() {
      // A profiled Relay writes its profile on a clean exit, so give shutdown time.
      await child.stop(opts.cpuProfDir ? 20_000 : 3_000);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Runs a `relay` command of this checkout to its end (e.g. `cloud teams create --json`) and resolves with its stdout; a failure throws. */
export async function relayCommand(args: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([BUN, join(ROOT, "src/server.ts"), ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`relay ${args.join(" ")} exited with ${code}: ${err || out}`);
  return out;
}

/** Readiness is polled on /health: log lines are not a contract to wait on. */
async function untilAnswering(url: string, child: Child): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`relay did not answer ${url} within ${READY_TIMEOUT_MS} ms\n${child.tail()}`);
}

/** A port the OS just handed out; Relay's CLI needs a concrete one to be reachable at a known URL. */
async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port;
  await probe.stop(true);
  if (port === undefined) throw new Error("could not reserve a port");
  return port;
}
