// The hosted path's cost (issue 37): the same chat request, non-streaming, to the proxy's
// POST /v1/chat/completions (`relay start`) and to the hosted POST /api/relay ({to, payload}, `relay
// cloud`), each Relay with bench/run.ts's configuration in its own home, behind one fake vendor,
// driven by wrk in alternating slices as bench/ab.ts does. The CLI runs one listener per process, so
// these are two processes of this checkout; each one's CPU is read from /proc. The hosted side adds
// the x-api-key guard (a key and a team read from the store, the plan's rate limit), the {to,
// payload} envelope and the §2.2 answer around the same route().
// The pro plan allows 3,000 requests a minute per team and plans are not configurable, so the
// bench makes --teams pro teams with `relay cloud teams create` and wrk sends their keys in turn
// (each team's share must stay under 3,000 a minute: a 429 stops the run as an error answer; a
// faster machine needs more --teams). It prints the median and range over paired rounds of the
// cost ratio hosted/proxy (the proxy's requests/s over the hosted path's, at the same connections).
// A figure, not a gate; asserts nothing.
//   bun bench/hosted.ts [--rounds 6] [--seconds 2] [--teams 128] [--cpu-prof DIR]
// --cpu-prof DIR: each Relay runs under Bun's sampling profiler and writes its profile to DIR/proxy
// and DIR/hosted (bun bench/profile-summary.ts ranks one).
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CASES, checkOnce } from "./lib/cases.ts";
import { newTally, tallySlice, type Tally } from "./lib/cpu-time.ts";
import { median } from "./lib/median.ts";
import { stopAll, stopAllOnSignals } from "./lib/procs.ts";
import { relayCommand, startFake, startRelay, type Target } from "./lib/stack.ts";
import { STREAM_CHUNKS } from "./lib/vendor-frames.ts";
import { assertWrkInstalled, type LoadSpec } from "./lib/wrk.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "2" },
    teams: { type: "string", default: "128" },
    "cpu-prof": { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const TEAMS = Number(values.teams);
const CONNECTIONS = 50;
/** Team creations run at once (each a short `relay` process on the hosted Relay's SQLite file). */
const CREATING_AT_ONCE = 8;

const chat = CASES.a.relay;
const model = (JSON.parse(chat.body) as { model: string }).model;
const relayBody = JSON.stringify({ to: model, payload: JSON.parse(chat.body) });

/** Pro teams in the hosted Relay's store before it starts; resolves with one standard key of each. */
async function proKeys(env: Record<string, string>): Promise<string[]> {
  const keys: string[] = [];
  while (keys.length < TEAMS) {
    const batch = Array.from({ length: Math.min(CREATING_AT_ONCE, TEAMS - keys.length) }, (_, i) =>
      relayCommand(["cloud", "teams", "create", "--name", `bench-${keys.length + i}`, "--plan", "pro", "--json"], env),
    );
    for (const out of await Promise.all(batch)) keys.push((JSON.parse(out) as { api_key: string }).api_key);
  }
  return keys;
}

/** One hosted request, answered 200 with the §2.2 fields and the vendor's chat completion inside. */
async function checkHosted(url: string, key: string): Promise<void> {
  const res = await fetch(`${url}/api/relay`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: relayBody });
  const text = await res.text();
  const body = res.status === 200 ? (JSON.parse(text) as { status_code?: number; body?: { choices?: Array<{ message?: { content?: unknown } }> } }) : undefined;
  if (body?.status_code !== 200 || typeof body.body?.choices?.[0]?.message?.content !== "string") {
    throw new Error(`correctness check failed for /api/relay (status ${res.status}):\n${text.slice(0, 2_000)}`);
  }
}

const perRequest = (t: Tally) => `main ${(t.mainUs / t.requests).toFixed(1)} µs, all threads ${(t.allUs / t.requests).toFixed(1)} µs per request`;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

assertWrkInstalled();
stopAllOnSignals();
try {
  const vendor = await startFake("openai", { chunks: STREAM_CHUNKS });
  let keys: string[] = [];
  const vendors = { openai: vendor.url, anthropic: vendor.url };
  const profiled = (name: string) => (values["cpu-prof"] === undefined ? {} : { cpuProfDir: join(values["cpu-prof"], name) });
  const proxy = await startRelay({ ...vendors, ...profiled("proxy") });
  const hosted = await startRelay({ ...vendors, ...profiled("hosted"), command: "cloud", prepare: async (env) => void (keys = await proKeys(env)) });
  try {
    await checkOnce(proxy.url, chat, "the proxy");
    await checkHosted(hosted.url, keys[0]!);
    const spec = (target: Target): Omit<LoadSpec, "durationSec"> =>
      target === proxy
        ? { url: proxy.url + chat.path, body: chat.body, connections: CONNECTIONS }
        : { url: `${hosted.url}/api/relay`, body: relayBody, connections: CONNECTIONS, cycle: { header: "x-api-key", values: keys } };
    const [p, h] = [newTally(), newTally()];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating which goes first keeps a drift of the machine from favouring one side.
      const order: Array<[Target, Tally]> = i % 2 === 0 ? [[proxy, p], [hosted, h]] : [[hosted, h], [proxy, p]];
      for (const [target, tally] of order) await tallySlice(tally, spec(target), 1, SECONDS, target.child.pid);
    }
    const cost = p.rps.map((v, i) => v / h.rps[i]!);
    console.log(`non-streaming ${model}, ${CONNECTIONS} connections, ${ROUNDS} paired rounds of ${SECONDS} s, ${TEAMS} pro teams' keys in turn`);
    console.log(`proxy  POST /v1/chat/completions: median ${median(p.rps).toFixed(0)} req/s; ${perRequest(p)}`);
    console.log(`hosted POST /api/relay:           median ${median(h.rps).toFixed(0)} req/s; ${perRequest(h)}`);
    console.log(`cost per request hosted/proxy (proxy req/s ÷ hosted req/s, per round): median ${median(cost).toFixed(2)}, range ${range(cost)} (rounds ${cost.map((r) => r.toFixed(2)).join(" ")})`);
    console.log(`CPU per request hosted/proxy over all rounds: main thread ${(h.mainUs / h.requests / (p.mainUs / p.requests)).toFixed(2)}, all threads ${(h.allUs / h.requests / (p.allUs / p.requests)).toFixed(2)}`);
  } finally {
    await Promise.all([proxy.stop(), hosted.stop(), vendor.stop()]);
  }
} finally {
  await stopAll();
}
