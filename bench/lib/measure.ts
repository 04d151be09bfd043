// The measurements behind each table row: throughput against the floor,
// added latency, memory with many open streams, and memory growth over a
// long run. Each returns its rows and whether its bar was met.
import { resolve } from "node:path";
import type { Call, RatioCase } from "./cases.ts";
import { median } from "./median.ts";
import { BUN, rssMb, spawnChild } from "./procs.ts";
import { verdict, type Row } from "./report.ts";
import type { Target } from "./stack.ts";
import { runWrk, type LoadResult } from "./wrk.ts";

export interface Timing {
  warmSec: number;
  measureSec: number;
  connections: number;
  /** Floor and Relay are measured in alternating slices, this many of each; the median round is reported. */
  rounds: number;
}

export interface Outcome {
  rows: Row[];
  pass: boolean;
}

/** Floor, then Relay, `rounds` times over after one warm-up each; the rounds in order. */
async function interleaved(floorUrl: string, floorCall: Call, relayUrl: string, relayCall: Call, timing: Timing): Promise<Array<{ floor: LoadResult; relay: LoadResult }>> {
  const spec = (base: string, call: Call) => ({ url: base + call.path, body: call.body, headers: call.headers, connections: timing.connections });
  await runWrk({ ...spec(floorUrl, floorCall), durationSec: timing.warmSec });
  await runWrk({ ...spec(relayUrl, relayCall), durationSec: timing.warmSec });
  const rounds: Array<{ floor: LoadResult; relay: LoadResult }> = [];
  for (let i = 0; i < timing.rounds; i++) {
    const floor = await runWrk({ ...spec(floorUrl, floorCall), durationSec: timing.measureSec });
    const relay = await runWrk({ ...spec(relayUrl, relayCall), durationSec: timing.measureSec });
    rounds.push({ floor, relay });
  }
  return rounds;
}

/** The round whose Relay/floor ratio is the median: a machine disturbance then moves one round, not the verdict. */
function medianRound<T extends { floor: LoadResult; relay: LoadResult }>(rounds: T[]): T {
  const sorted = [...rounds].sort((x, y) => x.relay.rps / x.floor.rps - y.relay.rps / y.floor.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * Relay's throughput as a share of the floor's, measured in alternating
 * slices so both see the same machine. `bar` is the ratio that passes (the
 * issue's target in the full run, a looser one in CI); a run with any error
 * answer never passes, its figures being meaningless.
 */
export async function ratioCase(c: RatioCase, floorUrl: string, relay: Target, timing: Timing, bar: number): Promise<Outcome> {
  const rounds = await interleaved(floorUrl, c.floor, relay.url, c.relay, timing);
  const { floor, relay: measured } = medianRound(rounds);
  const errors = rounds.reduce((n, r) => n + r.floor.errors + r.relay.errors, 0);
  const ratio = measured.rps / floor.rps;
  const pass = ratio >= bar && errors === 0;
  const each = rounds.map((r) => (r.relay.rps / r.floor.rps).toFixed(2)).join(" ");
  return {
    pass,
    rows: [
      { case: `${c.id}. ${c.title}`, target: "floor", rps: floor.rps, p50Ms: floor.p50Ms, p99Ms: floor.p99Ms },
      {
        case: "",
        target: "relay",
        rps: measured.rps,
        p50Ms: measured.p50Ms,
        p99Ms: measured.p99Ms,
        ratio,
        rssMb: await rssMb(relay.child.pid),
        verdict: verdict(pass, `ratio ≥ ${bar.toFixed(2)} (rounds ${each})${errors ? `; ${errors} ERRORS (non-2xx or socket)` : ""}`),
      },
    ],
  };
}

/**
 * Relay's added latency over the floor's at the same load, judged on the medians over the rounds of
 * the added p50 and of the added p99: picking one round (by its throughput ratio, as the rows do)
 * would judge a latency bar on whichever round that happened to be.
 */
export async function addedLatency(label: string, call: Call, floorUrl: string, relay: Target, timing: Timing, bars: { p50Ms: number; p99Ms: number }): Promise<Outcome> {
  const rounds = await interleaved(floorUrl, call, relay.url, call, timing);
  const { floor, relay: measured } = medianRound(rounds);
  const errors = rounds.reduce((n, r) => n + r.floor.errors + r.relay.errors, 0);
  const p50s = rounds.map((r) => r.relay.p50Ms - r.floor.p50Ms);
  const p99s = rounds.map((r) => r.relay.p99Ms - r.floor.p99Ms);
  const addP50 = median(p50s);
  const addP99 = median(p99s);
  const pass = addP50 <= bars.p50Ms && addP99 <= bars.p99Ms && errors === 0;
  const each = (added: number[]) => added.map((ms) => `${ms >= 0 ? "+" : ""}${ms.toFixed(2)}`).join(" ");
  const text =
    `added p50 ${addP50.toFixed(2)} ms, median of rounds (≤ ${bars.p50Ms}; rounds ${each(p50s)}), ` +
    `p99 ${addP99.toFixed(2)} ms (≤ ${bars.p99Ms}; rounds ${each(p99s)})${errors ? `; ${errors} ERRORS (non-2xx or socket)` : ""}`;
  return {
    pass,
    rows: [
      { case: label, target: "floor", rps: floor.rps, p50Ms: floor.p50Ms, p99Ms: floor.p99Ms },
      { case: "", target: "relay", rps: measured.rps, p50Ms: measured.p50Ms, p99Ms: measured.p99Ms, ratio: measured.rps / floor.rps, rssMb: await rssMb(relay.child.pid), verdict: verdict(pass, text) },
    ],
  };
}

const OPEN_STREAMS_CLIENT = resolve(import.meta.dir, "open-streams.ts");
const RSS_SAMPLE_MS = 200;

/**
 * Memory with `count` streams open at once: a separate client process opens
 * them all against a slow vendor; Relay's RSS is sampled idle (after
 * `settleSec`, so earlier load has been collected), while they are open
 * (peak) and again after they closed and Relay sat idle for `settleSec`.
 * Streams that only open once others finished (a concurrency cap somewhere)
 * miss the bar, as the memory figure would then not be for `count` streams.
 */
export async function openStreams(
  label: string,
  relay: Target,
  call: Call,
  opts: { count: number; settleSec: number; bars: { allOpenWithinSec: number; peakMb: number; backWithinMb: number } },
): Promise<Outcome> {
  const { count, settleSec, bars } = opts;
  await Bun.sleep(settleSec * 1000);
  const idle = await rssMb(relay.child.pid);
  const client = spawnChild("open-streams", [BUN, OPEN_STREAMS_CLIENT, "--url", relay.url + call.path, "--count", `${count}`, "--body", call.body], {
    // Bun's fetch caps concurrent requests per process (256 by default); the client needs all of them at once.
    BUN_CONFIG_MAX_HTTP_REQUESTS: `${count * 2}`,
  });
  let peak = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssMb(relay.child.pid));
      await Bun.sleep(RSS_SAMPLE_MS);
    }
  })();
  const open = await client.lineWith("OPEN ", 120_000);
  const done = await client.lineWith("DONE ", 120_000);
  sampling = false;
  await sampler;
  await client.stop();
  await Bun.sleep(settleSec * 1000);
  const after = await rssMb(relay.child.pid);

  const openMs = Number(open.split(" ")[2]);
  const [, ok, failed, totalMs, ...error] = done.split(" ");
  const pass = Number(failed) === 0 && openMs <= bars.allOpenWithinSec * 1000 && peak <= bars.peakMb && after - idle <= bars.backWithinMb;
  const text =
    `${ok}/${count} streams ok, all open after ${(openMs / 1000).toFixed(1)} s (≤ ${bars.allOpenWithinSec}), done after ${(Number(totalMs) / 1000).toFixed(1)} s; ` +
    `RSS idle ${idle.toFixed(1)} → peak ${peak.toFixed(1)} (≤ ${bars.peakMb}) → ${after.toFixed(1)} MB after ${settleSec} s idle (≤ +${bars.backWithinMb})` +
    (Number(failed) ? `; first failure: ${error.join(" ")}` : "");
  return { pass, rows: [{ case: label, target: "relay", rssMb: peak, verdict: verdict(pass, text) }] };
}

/**
 * Memory growth over at least `requests` requests. RSS is read the same way
 * before and after — a short load, then `settleSec` idle — so that heap
 * left over from earlier cases, and collected while idle, is not mistaken
 * for growth (or for shrinkage).
 */
export async function leakCheck(label: string, relay: Target, call: Call, opts: { requests: number; connections: number; settleSec: number; maxGrowthMb: number }): Promise<Outcome> {
  const spec = { url: relay.url + call.path, body: call.body, headers: call.headers, connections: opts.connections };
  const first = await runWrk({ ...spec, durationSec: FIRST_SLICE_SEC });
  await Bun.sleep(opts.settleSec * 1000);
  const before = await rssMb(relay.child.pid);
  let sent = 0;
  let errors = first.errors;
  let rps = first.rps;
  const started = performance.now();
  // wrk has no request count, so run in slices sized from the rate seen so far.
  while (sent < opts.requests) {
    const durationSec = Math.min(MAX_SLICE_SEC, Math.max(2, Math.ceil((opts.requests - sent) / Math.max(rps, 1))));
    const r = await runWrk({ ...spec, durationSec });
    sent += r.requests;
    errors += r.errors;
    rps = r.rps;
  }
  const elapsedSec = (performance.now() - started) / 1000;
  const loaded = await rssMb(relay.child.pid);
  await Bun.sleep(opts.settleSec * 1000);
  const after = await rssMb(relay.child.pid);
  const growth = after - before;
  const pass = growth <= opts.maxGrowthMb && errors === 0;
  const text =
    `${sent.toLocaleString("en-US")} requests in ${elapsedSec.toFixed(0)} s; RSS ${before.toFixed(1)} → ${loaded.toFixed(1)} under load → ${after.toFixed(1)} MB after ${opts.settleSec} s, ` +
    `growth ${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB (≤ ${opts.maxGrowthMb})${errors ? `; ${errors} ERRORS` : ""}`;
  return { pass, rows: [{ case: label, target: "relay", rps: sent / elapsedSec, rssMb: after, verdict: verdict(pass, text) }] };
}

const FIRST_SLICE_SEC = 3;
const MAX_SLICE_SEC = 30;
