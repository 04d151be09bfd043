// The browser as an attacker (issue 34, "Must deliver" 1 and 2): a web page the
// operator merely visits, or a DNS-rebound name, must not reach Relay's admin
// or model routes. Each attack is sent the way a browser would send it.
import { afterAll, beforeAll } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";
import { attack } from "./tally.ts";

/** Starts with "127." but is a name the attacker's DNS answers for. */
const LOOKALIKE = "http://127.0.0.1.attacker.example";
/** What a browser sends with a no-cors or form POST: no preflight. */
const TEXT_PLAIN = "text/plain;charset=UTF-8";

let anthropic: FakeVendor;
let openai: FakeVendor;
let relay: TestRelay;
let withToken: TestRelay;
let port: string;

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeVendor("anthropic"), startFakeVendor("openai")]);
  const env = { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "sk-ant-browser-attack", OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-browser-attack" };
  relay = await startRelay({ env });
  withToken = await startRelay({ env: { ...env, RELAY_ADMIN_TOKEN: "browser-attack-admin-token-0123" } });
  port = new URL(relay.url).port;
});
afterAll(async () => {
  await Promise.all([relay?.stop(), withToken?.stop()]);
  await Promise.all([anthropic?.close(), openai?.close()]);
});

const configText = () => readFileSync(join(relay.home, "config.json"), "utf8");
const vendorCalls = () => anthropic.requests.length + openai.requests.length;

/** A page on the look-alike origin POSTs a patch as a simple (unpreflighted) request. */
async function lookalikePatch(patch: unknown): Promise<{ status: number; before: string; after: string }> {
  const before = configText();
  const res = await fetch(`${relay.url}/control/config`, { method: "POST", headers: { origin: LOOKALIKE, "content-type": TEXT_PLAIN }, body: JSON.stringify(patch) });
  await res.text();
  return { status: res.status, before, after: configText() };
}

function expectRefused(got: { status: number; before: string; after: string }): void {
  if (got.status !== 403) throw new Error(`expected 403, got ${got.status}`);
  if (got.after !== got.before) throw new Error(`config.json changed: ${got.after}`);
}

attack("browser: DNS rebinding (Host attacker.example) cannot read admin GETs: 421", async () => {
  for (const path of ["/v1/config", "/v1/telemetry/runs", "/v1/telemetry/stats", "/dashboard/api/runs", "/control/status"]) {
    const res = await fetch(`${relay.url}${path}`, { headers: { host: `attacker.example:${port}` } });
    const body = await res.text();
    if (res.status !== 421) throw new Error(`${path}: expected 421, got ${res.status}: ${body.slice(0, 200)}`);
  }
});

attack("browser: DNS rebinding (Host attacker.example) cannot use the model routes: 421, no vendor call", async () => {
  const before = vendorCalls();
  const calls: Array<[string, unknown]> = [
    ["/v1/messages", { model: "claude-haiku-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }],
    ["/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }],
  ];
  for (const [path, body] of calls) {
    const res = await fetch(`${relay.url}${path}`, { method: "POST", headers: { host: `attacker.example:${port}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 421) throw new Error(`${path}: expected 421, got ${res.status}: ${text.slice(0, 200)}`);
  }
  if (vendorCalls() !== before) throw new Error("the vendor was called");
});

attack("browser: a text/plain no-cors POST to the model routes gets 415 (403 cross-origin) and no vendor call", async () => {
  const before = vendorCalls();
  const calls: Array<[string, unknown]> = [
    ["/v1/messages", { model: "claude-haiku-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }],
    ["/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }],
  ];
  for (const [path, body] of calls) {
    // Without an Origin (as some clients and extensions send it) the content type alone refuses it...
    const plain = await fetch(`${relay.url}${path}`, { method: "POST", headers: { "content-type": TEXT_PLAIN }, body: JSON.stringify(body) });
    const text = await plain.text();
    if (plain.status !== 415) throw new Error(`${path}: expected 415, got ${plain.status}: ${text.slice(0, 200)}`);
    // ...and from a page of another origin, the Origin check refuses it first.
    const cross = await fetch(`${relay.url}${path}`, { method: "POST", headers: { origin: "https://attacker.example", "content-type": TEXT_PLAIN }, body: JSON.stringify(body) });
    await cross.text();
    if (cross.status !== 403) throw new Error(`${path} cross-origin: expected 403, got ${cross.status}`);
  }
  if (vendorCalls() !== before) throw new Error("the vendor was called");
});

attack("browser: a 127.0.0.1.attacker.example origin ending all sessions is refused", async () => {
  const res = await fetch(`${relay.url}/control/kill`, { method: "POST", headers: { origin: LOOKALIKE, "content-type": TEXT_PLAIN }, body: JSON.stringify({ all: true }) });
  await res.text();
  if (res.status !== 403) throw new Error(`expected 403, got ${res.status}`);
  if (relay.logs.some((l) => l.includes("sessions killed"))) throw new Error("sessions were killed");
});

attack("browser: a 127.0.0.1.attacker.example origin patching providers.anthropic.baseUrl is refused", async () => {
  expectRefused(await lookalikePatch({ providers: { anthropic: { baseUrl: "https://collect.attacker.example" } } }));
  if (relay.relay.config().providers.anthropic?.baseUrl) throw new Error("the running config took the attacker's base URL");
});

attack("browser: a 127.0.0.1.attacker.example origin patching pluginsDirs is refused", async () => {
  expectRefused(await lookalikePatch({ pluginsDirs: ["/tmp/attacker-plugins"] }));
  if (relay.relay.config().pluginsDirs.includes("/tmp/attacker-plugins")) throw new Error("the running config took the attacker's plugin folder");
});

attack("browser: a 127.0.0.1.attacker.example origin patching server.host and adminToken is refused", async () => {
  expectRefused(await lookalikePatch({ server: { host: "0.0.0.0" }, adminToken: "attacker-chosen-token-0123456789" }));
  if (relay.relay.config().server.host !== "127.0.0.1") throw new Error("the running config took the attacker's listen address");
});

attack("browser: with RELAY_ADMIN_TOKEN set, an admin request on loopback without a token is refused (401)", async () => {
  for (const path of ["/v1/config", "/control/status", "/v1/telemetry/runs"]) {
    const res = await fetch(`${withToken.url}${path}`);
    await res.text();
    if (res.status !== 401) throw new Error(`${path}: expected 401, got ${res.status}`);
  }
  const disable = await fetch(`${withToken.url}/control/disable`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  await disable.text();
  if (disable.status !== 401 || !withToken.relay.control.routingEnabled) throw new Error(`routing disable without a token: ${disable.status}`);
});
