// Soak: a bounded run of mixed streamed and whole requests through Relay (a
// child process) with ~5% injected vendor faults. Samples Relay's RSS, open
// file descriptors and error counts as it goes, stops Relay gracefully and
// prints a verdict: PASS only when RSS and fds stayed bounded, no request failed
// that the vendor had not been told to fail, and every answered request is in
// the run log.
//
//   bun bench/soak.ts                 # 10 minutes
//   bun bench/soak.ts --minutes 0.5   # the CI short form (tests/reliability/soak.test.ts)
import { Database } from "bun:sqlite";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../tests/fakes/vendor.ts";
import type { ReceivedRequest, Reply } from "../tests/fakes/types.ts";
import { FROM_SOURCE, childEnv, startRelayProcess, tempDir } from "../tests/cli/relay-process.ts";
import { rssMb } from "./lib/procs.ts";

const FAULT_RATE = 0.05;
const WORKERS = 16;
/** Bounds of the verdict, against the first sample taken after warm-up. */
const MAX_RSS_GROWTH_MB = 64;
const MAX_FD_GROWTH = 32;

const FAULTS: Reply[] = [
  { status: 500 },
  { status: 503 },
  { status: 429 },
  { text: "a faulty answer cut short", textChunks: 6, fault: "stop-mid-stream" },
  { text: "a faulty answer cut short", textChunks: 6, fault: "reset-mid-body" },
  { text: "a faulty answer", fault: "malformed-json" },
];

function minutesArg(argv: string[]): number {
  const i = argv.indexOf("--minutes");
  if (i === -1) return 10;
  const m = Number(argv[i + 1]);
  if (!(m > 0)) throw new Error(`--minutes expects a positive number, got ${argv[i + 1]}`);
  return m;
}

/** Answers normally, or with a random fault for ~5% of requests, remembering which ids it faulted. */
function faultyVendor(fake: FakeVendor, faulted: Set<string>): void {
  fake.setDefault((req: ReceivedRequest) => {
    const id = /soak-(\d+)/.exec(req.bodyText)?.[1];
    if (id !== undefined && Math.random() < FAULT_RATE) {
      faulted.add(id);
      return FAULTS[Math.floor(Math.random() * FAULTS.length)]!;
    }
    return { text: "a steady answer from the soak vendor", textChunks: 8, usage: { input: 12, output: 8 } };
  });
}

interface Sample {
  atSec: number;
  rssMb: number;
  fds: number;
  requests: number;
  errors: number;
}

type Kind = "openai-json" | "openai-sse" | "anthropic-sse" | "anthropic-json";
const KINDS: Kind[] = ["openai-json", "openai-sse", "anthropic-sse", "anthropic-json"];

/** True when the client received a whole, error-free answer. */
function complete(kind: Kind, status: number, text: string): boolean {
  if (status !== 200) return false;
  if (kind === "openai-sse") return text.includes("data: [DONE]") && !text.includes('"error"');
  if (kind === "anthropic-sse") return text.includes("message_stop") && !text.includes("event: error");
  return true;
}

async function main(): Promise<number> {
  const minutes = minutesArg(process.argv.slice(2));
  const durationMs = minutes * 60_000;
  const sampleEveryMs = Math.min(5_000, Math.max(1_000, durationMs / 15));
  const faulted = new Set<string>();
  const [openai, anthropic] = await Promise.all([startFakeVendor("openai", { recordRequests: false }), startFakeVendor("anthropic", { recordRequests: false })]);
  faultyVendor(openai, faulted);
  faultyVendor(anthropic, faulted);
  const home = tempDir("soak");
  // No cooldown: every failure must be traceable to an injected fault, not to a provider cooling down.
  writeFileSync(join(home, "config.json"), JSON.stringify({ cooldown: { failures: 1_000_000 }, logLevel: "warn" }));
  const relay = await startRelayProcess(FROM_SOURCE, {
    env: childEnv(home, { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "k", ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "k" }),
  });
  const pid = relay.proc.pid;

  const answered = new Map<string, string>(); // Relay request id → soak id
  const unexpected: string[] = [];
  let requests = 0;
  let errors = 0;
  let next = 0;
  const deadline = Date.now() + durationMs;

  async function oneRequest(): Promise<void> {
    const id = String(next++);
    const kind = KINDS[Number(id) % KINDS.length]!;
    const stream = kind.endsWith("sse");
    const anthropicRoute = kind.startsWith("anthropic");
    const content = `soak-${id} tell me something`;
    const res = await fetch(`${relay.url}${anthropicRoute ? "/v1/messages" : "/v1/chat/completions"}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        anthropicRoute
          ? { model: "claude-haiku-4-5", max_tokens: 64, stream, messages: [{ role: "user", content }] }
          : { model: "gpt-4o-mini", stream, messages: [{ role: "user", content }] },
      ),
    });
    const text = await res.text();
    requests++;
    answered.set(res.headers.get("x-svc-request-id") ?? `missing-${id}`, id);
    if (complete(kind, res.status, text)) return;
    errors++;
    if (!faulted.has(id)) unexpected.push(`${kind} #${id}: ${res.status} ${text.slice(0, 200)}`);
  }

  const workers = Array.from({ length: WORKERS }, async () => {
    while (Date.now() < deadline) {
      await oneRequest().catch((e) => {
        errors++;
        unexpected.push(`client error: ${(e as Error).message}`);
      });
    }
  });

  const samples: Sample[] = [];
  const started = Date.now();
  const sample = async () => {
    samples.push({ atSec: Math.round((Date.now() - started) / 1000), rssMb: await rssMb(pid), fds: readdirSync(`/proc/${pid}/fd`).length, requests, errors });
    const s = samples.at(-1)!;
    console.log(`t=${s.atSec}s rss=${s.rssMb.toFixed(1)}MB fds=${s.fds} requests=${s.requests} errors=${s.errors}`);
  };
  while (Date.now() < deadline) {
    await sample();
    await Bun.sleep(Math.min(sampleEveryMs, Math.max(0, deadline - Date.now())));
  }
  await Promise.all(workers);
  await sample();

  // Graceful stop flushes the run log; then every answered request must be in it.
  const exitCode = await relay.stop("SIGTERM");
  const db = new Database(join(home, "data", "relay.db"), { readonly: true });
  const lookup = db.query("SELECT 1 FROM runs WHERE id = ?");
  const lost = [...answered.keys()].filter((rid) => !lookup.get(rid));
  db.close();
  await Promise.all([openai.close(), anthropic.close()]);
  rmSync(home, { recursive: true, force: true });

  // Warm-up (JIT, lazy catalog, connection pools) ends with the first fifth of the run.
  const baseline = samples.find((s) => s.atSec * 1000 >= durationMs / 5) ?? samples[0]!;
  const last = samples.at(-1)!;
  const rssGrowth = last.rssMb - baseline.rssMb;
  const fdGrowth = last.fds - baseline.fds;
  const reasons: string[] = [];
  if (rssGrowth > MAX_RSS_GROWTH_MB) reasons.push(`RSS grew ${rssGrowth.toFixed(1)} MB after warm-up (bound ${MAX_RSS_GROWTH_MB})`);
  if (fdGrowth > MAX_FD_GROWTH) reasons.push(`open fds grew by ${fdGrowth} after warm-up (bound ${MAX_FD_GROWTH})`);
  if (unexpected.length) reasons.push(`${unexpected.length} unexpected failures, e.g. ${unexpected[0]}`);
  if (lost.length) reasons.push(`${lost.length} answered requests missing from the run log`);
  if (exitCode !== 0) reasons.push(`Relay exited with ${exitCode} on SIGTERM`);
  if (requests === 0) reasons.push("no request completed");

  console.log(
    `soak: ${minutes} min, ${requests} requests, ${faulted.size} faults injected, ${errors} failed (all injected: ${unexpected.length === 0}), ` +
      `rss ${baseline.rssMb.toFixed(1)} → ${last.rssMb.toFixed(1)} MB, fds ${baseline.fds} → ${last.fds}, lost records ${lost.length}`,
  );
  console.log(reasons.length ? `VERDICT: FAIL — ${reasons.join("; ")}` : "VERDICT: PASS");
  return reasons.length ? 1 : 0;
}

process.exit(await main());
