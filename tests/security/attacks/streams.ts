// Attacks on how much a vendor stream may take from Relay (issue 34, item 5):
// one huge SSE event, a stream that drips forever, and many huge events at
// once. A cap passed must end that stream cleanly: an error event to the
// client, the run logged as an error naming the cap, the vendor call cancelled.
import { expect } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FROM_SOURCE, childEnv, startRelayProcess, tempDir } from "../../cli/relay-process.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";
import { attack } from "./tally.ts";
import { dripScript, hugeEventScript, readMessagesStream, rssOf, streamVendor, until, type StreamVendor } from "./lib-streams.ts";

const MB = 1024 * 1024;
const KEY = "sk-ant-test-anthropic";

async function relayFor(vendor: StreamVendor, config?: Record<string, unknown>): Promise<TestRelay> {
  return startRelay({ env: { ANTHROPIC_BASE_URL: vendor.url, ANTHROPIC_API_KEY: KEY }, config });
}

/** The newest logged run. */
async function lastRun(r: TestRelay) {
  await r.relay.writer.flush();
  return (await r.relay.store.runs.listRuns({ limit: 1, offset: 0 })).runs[0];
}

attack("streams: one 40 MB SSE event is not relayed (default caps)", async () => {
  const vendor = streamVendor(() => hugeEventScript(40 * MB));
  const r = await relayFor(vendor);
  try {
    const got = await readMessagesStream(r.url, 20_000);
    expect(got.status).toBe(200);
    expect(got.ended).toBe(true);
    // The first delta came through, the huge one did not, and the stream ends with an error event.
    expect(got.text).toContain("Hello");
    expect(got.bytes).toBeLessThan(1 * MB);
    expect(got.text).toContain("event: error");
    expect(got.text).not.toContain("message_stop");
    const run = await lastRun(r);
    expect(run?.outcome).toBe("error");
    expect(run?.error).toContain("server.streamMaxEventBytes");
    // The vendor call ends: the vendor sees the cut when its socket closes, within milliseconds on a
    // quiet machine. On a loaded 2-core machine the fake can write all 40 MB into the socket (Bun's
    // HTTP client reads ahead of the relay) before the relay reads past the cap, and then it has
    // finished, not been cancelled (seen once in four loaded runs, vendor stats {finished: 1}); the
    // client's answer above is the same either way. What must not happen is a call left open.
    expect(await until(() => vendor.stats.cancelled + vendor.stats.finished === 1, 20_000)).toBe(true);
  } finally {
    await r.stop();
    await vendor.close();
  }
}, 45_000);

attack("streams: a vendor dripping one event every 200 ms forever is ended by the duration limit", async () => {
  const vendor = streamVendor(() => dripScript(200));
  const bounded = { server: { upstreamTimeoutMs: 1000, streamMaxDurationMs: 2000 } };
  // A build without the duration key (961fac5) refuses it: it then runs with upstreamTimeoutMs
  // alone, which is what the probe found does not end a dripping stream.
  const r = await relayFor(vendor, bounded).catch(() => relayFor(vendor, { server: { upstreamTimeoutMs: 1000 } }));
  try {
    const got = await readMessagesStream(r.url, 8000);
    expect(got.status).toBe(200);
    expect(got.ended).toBe(true);
    expect(got.ms).toBeGreaterThan(1900);
    expect(got.ms).toBeLessThan(6000);
    expect(got.text).toContain("drip");
    expect(got.text).toContain("event: error");
    const run = await lastRun(r);
    expect(run?.outcome).toBe("error");
    expect(run?.error).toContain("server.streamMaxDurationMs");
    expect(await until(() => vendor.stats.cancelled === 1)).toBe(true);
  } finally {
    await r.stop();
    await vendor.close();
  }
}, 30_000);

attack("streams: 10 concurrent streams of 50 MB events keep Relay's peak RSS under idle + caps + 100 MB", async () => {
  // Half the huge events come before the first content (the priming buffer), half after it.
  const vendor = streamVendor((i) => (i === 0 ? hugeEventScript(0) : hugeEventScript(50 * MB, i % 2 === 0)));
  const home = tempDir("streams");
  // The process-wide cap bounds everything all streams hold together.
  const caps = 256;
  const start = (server: Record<string, unknown>) => {
    writeFileSync(join(home, "config.json"), JSON.stringify({ server }));
    return startRelayProcess(FROM_SOURCE, {
      env: childEnv(home, { RELAY_PLUGINS_DIR: `${home}/plugins`, ANTHROPIC_BASE_URL: vendor.url, ANTHROPIC_API_KEY: KEY, RELAY_LOG_LEVEL: "warn" }),
    });
  };
  // A build without the key (961fac5) refuses it, and runs unbounded.
  const relay = await start({ streamMaxHeldBytes: caps * MB }).catch(() => start({}));
  try {
    // Warm-up: one ordinary stream, so that idle includes the code a stream loads.
    expect((await readMessagesStream(relay.url, 10_000)).text).toContain("message_stop");
    const idle = rssOf(relay.proc.pid).rss;
    const streams = await Promise.all(Array.from({ length: 10 }, () => readMessagesStream(relay.url, 25_000)));
    const { peak } = rssOf(relay.proc.pid);
    console.log(`peak RSS: ${peak.toFixed(0)} MB (idle ${idle.toFixed(0)} MB, caps ${caps} MB)`);
    expect(peak).toBeLessThan(idle + caps + 100);
    for (const s of streams) {
      expect(s.ended).toBe(true);
      expect(s.bytes).toBeLessThan(1 * MB);
      // Each ended in error: an error event in the stream, or an error answer before any byte of it.
      expect(s.status !== 200 || s.text.includes("event: error")).toBe(true);
    }
    expect(await until(() => vendor.stats.cancelled === 10)).toBe(true);
  } finally {
    await relay.stop("SIGKILL");
    await vendor.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
