// A Relay holding the operator's Anthropic key with an admin token configured, its Anthropic base URL
// in config.json (a file setting, so the patch under attack is the only thing that could move it), and
// a second fake Anthropic standing for the attacker's server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";

export const ADMIN_TOKEN = "admin-token-for-config-patch-attacks";
export const OPERATOR_KEY = "sk-ant-operator-secret-key-0123456789";

export interface PatchWorld {
  relay: TestRelay;
  vendor: FakeVendor;
  attacker: FakeVendor;
  configFile: string;
  /** POST /control/config with the admin token, as the attacker who got past the browser checks would. */
  patch(body: unknown): Promise<Response>;
  configText(): string;
}

export async function withPatchWorld(fn: (w: PatchWorld) => Promise<void>): Promise<void> {
  const [vendor, attacker] = await Promise.all([startFakeVendor("anthropic"), startFakeVendor("anthropic")]);
  const relay = await startRelay({
    env: { ANTHROPIC_API_KEY: OPERATOR_KEY, RELAY_ADMIN_TOKEN: ADMIN_TOKEN },
    config: { providers: { anthropic: { baseUrl: vendor.url } }, limits: { rpmDefault: 0 } },
  });
  const configFile = join(relay.home, "config.json");
  const world: PatchWorld = {
    relay,
    vendor,
    attacker,
    configFile,
    patch: (body) =>
      fetch(`${relay.url}/control/config`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    configText: () => readFileSync(configFile, "utf8"),
  };
  try {
    await fn(world);
  } finally {
    await relay.stop();
    await Promise.all([vendor.close(), attacker.close()]);
  }
}

/** One model request through Relay, answered by whichever server the Anthropic base URL names. */
export function modelRequest(w: PatchWorld): Promise<Response> {
  return fetch(`${w.relay.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  });
}

/** `{"a":{"a":…{"a":1}…}}` nested `depth` deep: about 6 bytes a level. */
export function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/**
 * Time /health answers while `slow` runs: one probe every 25 ms, each timed from send to answer.
 * Returns the slowest probe's time, so a request thread blocked by `slow` shows as a long probe.
 */
export async function slowestHealthDuring<T>(url: string, slow: Promise<T>): Promise<{ result: T; slowestMs: number; probes: number }> {
  let done = false;
  let slowestMs = 0;
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      const t0 = performance.now();
      await (await fetch(`${url}/health`)).arrayBuffer();
      slowestMs = Math.max(slowestMs, performance.now() - t0);
      probes++;
      await Bun.sleep(25);
    }
  })();
  let result: T;
  try {
    result = await slow;
  } finally {
    done = true;
    await probing; // the probe in flight when `slow` ended counts too
  }
  return { result, slowestMs, probes };
}
