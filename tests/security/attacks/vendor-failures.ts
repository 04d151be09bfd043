// Attacks on how Relay treats its vendors (issue 34, items 8 and 9): vendors
// that break below HTTP, a dated model id slipping past a rate limit, Relay's
// own base-URL variables pointing back at itself, and `relay doctor` passing
// a base URL that does not speak the vendor's API.
import { expect } from "bun:test";
import { rmSync } from "node:fs";
import { startFakeVendor } from "../../fakes/vendor.ts";
import { FROM_SOURCE, childEnv, run, tempDir } from "../../cli/relay-process.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";
import { attack } from "./tally.ts";
import { freePort, notHttpVendor, relayAt, resetVendor, type RawVendor } from "./lib-vendor-failures.ts";

const KEYS = { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant-test-anthropic" };
/** gpt-4o-mini falls back to claude-haiku-4-5; gpt-4o has no fallback. A high threshold keeps the provider from cooling down. */
const CHAIN = {
  routing: { strategies: { fallback: { chains: { "gpt-4o-mini": ["claude-haiku-4-5"] } } } },
  cooldown: { failures: 1000, windowSec: 600 },
};

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = 10_000) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
const chat = (model: string) => ({ model, messages: [{ role: "user", content: "Say hi" }] });
const messages = (model: string) => ({ model, max_tokens: 32, messages: [{ role: "user", content: "Say hi" }] });
const failuresOf = (r: TestRelay, provider: string) => r.relay.cooldown.snapshot().find((s) => s.provider === provider)?.recentFailures ?? 0;

/**
 * A chain whose first model's vendor is `broken`: the request falls back and the broken provider's
 * cooldown count grows; a model without a fallback fails with a message that names the provider
 * and never the vendor's address.
 */
async function expectRetryableAndHidden(broken: RawVendor | { url: string; port: number }): Promise<void> {
  const anthropic = await startFakeVendor("anthropic");
  const r = await startRelay({ env: { ...KEYS, OPENAI_BASE_URL: `${broken.url}/v1`, ANTHROPIC_BASE_URL: anthropic.url }, config: CHAIN });
  try {
    const fell = await post(r.url, "/v1/chat/completions", chat("gpt-4o-mini"));
    const fellText = await fell.text();
    expect({ status: fell.status, routed: fell.headers.get("x-svc-routed-model"), fallback: fell.headers.get("x-svc-fallback-used") }).toEqual({
      status: 200,
      routed: "claude-haiku-4-5",
      fallback: "true",
    });
    expect(fellText).toContain("Hello from fake anthropic");
    expect(failuresOf(r, "openai")).toBe(1);

    const alone = await post(r.url, "/v1/chat/completions", chat("gpt-4o"));
    const text = await alone.text();
    expect(alone.status).toBe(502);
    expect(JSON.parse(text).error.message).toMatch(/openai/);
    for (const leak of ["127.0.0.1", `:${broken.port}`, String(broken.port)]) expect(text).not.toContain(leak);
    expect(failuresOf(r, "openai")).toBe(2);
  } finally {
    await r.stop();
    await anthropic.close();
  }
}

attack("a vendor answering bytes that are not HTTP gets fallback and cooldown; its address never reaches the client", async () => {
  const raw = notHttpVendor();
  try {
    await expectRetryableAndHidden(raw);
  } finally {
    raw.close();
  }
});

attack("a connection reset mid-headers and a refused connection get fallback and cooldown; no address reaches the client", async () => {
  const reset = await resetVendor();
  try {
    await expectRetryableAndHidden(reset);
  } finally {
    reset.close();
  }
  const port = await freePort();
  await expectRetryableAndHidden({ url: `http://127.0.0.1:${port}`, port });
});

attack("a dated model id and an alias share the rate limit set for gpt-4o-mini", async () => {
  const openai = await startFakeVendor("openai");
  const r = await startRelay({ env: { ...KEYS, OPENAI_BASE_URL: `${openai.url}/v1` }, config: { limits: { rpm: { "gpt-4o-mini": 2 } } } });
  try {
    // Each order: the third request within the minute is refused, whichever name it uses.
    const names = ["gpt-4o-mini-2024-07-18", "4o-mini", "gpt-4o-mini"];
    const statuses: number[] = [];
    for (const name of names) {
      const res = await post(r.url, "/v1/chat/completions", chat(name));
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const dated = await post(r.url, "/v1/chat/completions", chat("openai:gpt-4o-mini-2024-07-18"));
    await dated.body?.cancel();
    expect(dated.status).toBe(429);
  } finally {
    await r.stop();
    await openai.close();
  }
});

attack("a base URL in Relay's own environment that points at Relay is refused at once with 508 naming the variable", async () => {
  const port = await freePort();
  const self = await relayAt(port, (url) => ({ ...KEYS, ANTHROPIC_BASE_URL: url, OPENAI_BASE_URL: `${url}/v1` }));
  try {
    const started = Date.now();
    const viaMessages = await post(self.url, "/v1/messages", messages("claude-haiku-4-5"), {}, 5_000);
    expect(viaMessages.status).toBe(508);
    expect(await viaMessages.text()).toContain("ANTHROPIC_BASE_URL");
    const viaChat = await post(self.url, "/v1/chat/completions", chat("gpt-4o-mini"), {}, 5_000);
    expect(viaChat.status).toBe(508);
    expect(await viaChat.text()).toContain("OPENAI_BASE_URL");
    expect(Date.now() - started).toBeLessThan(5_000);
    // Start-up said so already.
    await self.waitForLog((rec) => rec.level === "warn" && String(rec.msg).startsWith("ANTHROPIC_BASE_URL points back at this Relay"));
  } finally {
    await self.stop();
  }

  // Two Relays chained on purpose (A's base URL → B → the fake vendor) still work.
  const anthropic = await startFakeVendor("anthropic");
  const b = await startRelay({ env: { ...KEYS, ANTHROPIC_BASE_URL: anthropic.url } });
  const a = await relayAt(await freePort(), () => ({ ...KEYS, ANTHROPIC_BASE_URL: b.url }));
  try {
    const res = await post(a.url, "/v1/messages", messages("claude-haiku-4-5"), {}, 5_000);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain("Hello from fake anthropic");
    expect(anthropic.requests.length).toBe(1);
  } finally {
    await a.stop();
    await b.stop();
    await anthropic.close();
  }
}, 60_000);

attack("relay doctor fails a base URL that points back at Relay, and one that answers 404 on the vendor's path", async () => {
  const home = tempDir("doctor-loop");
  const running = await startRelay();
  const port = new URL(running.url).port;
  // Routing tiers use claude models by default: name openai models, so that only OpenAI is checked.
  const config = `${home}/openai-only.json`;
  await Bun.write(config, JSON.stringify({ routing: { strategies: { complexity: { tiers: { simple: "gpt-5-nano", moderate: "gpt-5-mini", complex: "gpt-5" } } } } }));
  try {
    const env = childEnv(home, { OPENAI_API_KEY: KEYS.OPENAI_API_KEY, OPENAI_BASE_URL: `${running.url}/v1`, RELAY_PLUGINS_DIR: `${home}/plugins` });
    const looped = await run([...FROM_SOURCE, "doctor", "--config", config, "--port", port], { env });
    expect(looped.stdout).not.toContain("all checks passed");
    expect(looped.stdout).toContain("OPENAI_BASE_URL");
    expect(looped.code).toBe(1);
  } finally {
    await running.stop();
  }

  const notVendor = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("Not Found", { status: 404 }) });
  try {
    const env = childEnv(home, { OPENAI_API_KEY: KEYS.OPENAI_API_KEY, OPENAI_BASE_URL: `http://127.0.0.1:${notVendor.port}/v1`, RELAY_PLUGINS_DIR: `${home}/plugins` });
    const r = await run([...FROM_SOURCE, "doctor", "--config", config, "--port", String(await freePort())], { env });
    expect(r.stdout).not.toContain("all checks passed");
    expect(r.stdout).toMatch(/FAIL\s+reach openai/);
    expect(r.code).toBe(1);
  } finally {
    await notVendor.stop(true);
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
