// Helpers of the "secrets" attacks (issue 34): a Relay in front of fake vendors
// that echo keys back, and the places a leaked key could surface — the client's
// body, the run log over HTTP, the files of the store, Relay's log lines and the
// output of the `relay` CLI.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { startRelay, type StartRelayOptions, type TestRelay } from "../../helpers/relay.ts";
import { BUN, SERVER, childEnv, run } from "../../cli/relay-process.ts";

/** Long enough for the config schema (minLength 16); itself a secret that must never be echoed. */
export const ADMIN_TOKEN = "admin-token-Vq83Jd02Lp57Ws19";
export const JSON_TYPE = { "content-type": "application/json" };

export interface SecretsRig {
  relay: TestRelay;
  vendor: FakeVendor;
  /** Everything a client or an operator can read back, as text: collected by `sweep`. */
  seen: string[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  /** Adds the run log (HTTP), the store's files and the `relay logs` CLI output to `seen`. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSecretsRig(kind: "openai" | "anthropic" | "gemini", opts: StartRelayOptions = {}): Promise<SecretsRig> {
  const vendor = await startFakeVendor(kind);
  const provider = kind === "gemini" ? "google" : kind;
  const baseUrl = kind === "openai" ? `${vendor.url}/v1` : vendor.url;
  const relay = await startRelay({
    ...opts,
    config: {
      adminToken: ADMIN_TOKEN,
      // One vendor-side failure cools the provider down: its warning carries the vendor's message.
      cooldown: { failures: 1 },
      providers: { [provider]: { baseUrl } },
      ...opts.config,
    },
  });
  const seen: string[] = [];
  const rig: SecretsRig = {
    relay,
    vendor,
    seen,
    async post(path, body, headers = {}) {
      const res = await fetch(`${relay.url}${path}`, { method: "POST", headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) });
      const text = await res.text();
      seen.push(`${path} ${res.status} ${JSON.stringify([...res.headers])} ${text}`);
      return { status: res.status, text };
    },
    async sweep() {
      const runs = await fetch(`${relay.url}/v1/telemetry/runs?limit=100`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      seen.push(`run log ${runs.status} ${await runs.text()}`);
      for (const [file, text] of storeFiles(relay.home)) seen.push(`file ${file} ${text}`);
      const port = new URL(relay.url).port;
      const cli = await run([BUN, SERVER, "logs", "--host", "127.0.0.1", "--port", port, "-n", "100"], { env: childEnv(relay.home) });
      seen.push(`relay logs (${cli.code}) ${cli.stdout} ${cli.stderr}`);
      // Both views really listed the runs: an empty or refused answer would hide nothing.
      if (runs.status !== 200 || cli.code !== 0 || !(cli.stdout.includes("401") || cli.stdout.includes("503")))
        throw new Error(`the run log could not be read: HTTP ${runs.status}; relay logs exited ${cli.code}: ${cli.stdout} ${cli.stderr}`);
    },
    async stop() {
      await relay.stop();
      await vendor.close();
    },
  };
  return rig;
}

/** Every file under the relay's data folder, read as latin1 (SQLite pages and WAL frames hold the text as it is). */
function storeFiles(home: string): Array<[string, string]> {
  const dir = join(home, "data");
  const out: Array<[string, string]> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out.push([name, readFileSync(path).toString("latin1")]);
  }
  return out;
}

/** The texts (shortened) among `haystack` that contain any of `needles`. */
export function leaks(haystack: string[], needles: string[]): Array<{ needle: string; where: string }> {
  const found: Array<{ needle: string; where: string }> = [];
  for (const needle of needles) {
    for (const text of haystack) {
      const at = text.indexOf(needle);
      if (at !== -1) found.push({ needle, where: text.slice(Math.max(0, at - 80), at + needle.length + 40) });
    }
  }
  return found;
}

export const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra });
