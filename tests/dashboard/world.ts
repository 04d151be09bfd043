/**
 * The dashboard suites' world: Anthropic and OpenAI fakes, a real Relay on
 * them, and real proxied traffic (several models, a failure with a fallback,
 * a stream) for the dashboard to show.
 */
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

export interface DashboardWorld {
  /** Origin serving the proxy, control, telemetry and dashboard surfaces. */
  url: string;
  relay: TestRelay;
  anthropic: FakeVendor;
  openai: FakeVendor;
  stop(): Promise<void>;
}

export async function startDashboardWorld(opts: { config?: Record<string, unknown> } = {}): Promise<DashboardWorld> {
  const [anthropic, openai] = await Promise.all([startFakeVendor("anthropic"), startFakeVendor("openai")]);
  const relay = await startRelay({
    env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "sk-ant-test", OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-test" },
    config: { limits: { rpm: { "gpt-4o-mini": 60 } }, ...opts.config },
  });
  return {
    url: relay.url,
    relay,
    anthropic,
    openai,
    async stop() {
      await relay.stop();
      await Promise.all([anthropic.close(), openai.close()]);
    },
  };
}

const chat = (url: string, model: string, opts: { stream?: boolean; session?: string } = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(opts.session ? { "x-svc-session": opts.session } : {}),
      "x-svc-metadata": JSON.stringify({ team: "dash" }),
    },
    body: JSON.stringify({ model, stream: opts.stream ?? false, messages: [{ role: "user", content: "Say hello" }] }),
  });

/** The traffic every dashboard test looks for; returns the HTTP statuses answered. */
export async function sendTraffic(w: DashboardWorld): Promise<number[]> {
  w.anthropic.enqueue({ text: "Hello!", usage: { input: 12, output: 4 } });
  w.anthropic.enqueue({ text: "The answer is 42.", usage: { input: 20, output: 8 } });
  w.openai.enqueue({ text: "Hi there", usage: { input: 9, output: 3 } });
  // A vendor failure with nowhere to fall back: answered as an error.
  w.openai.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "bad request upstream" });
  w.openai.enqueue({ text: "streamed answer", usage: { input: 8, output: 6 } });
  const statuses: number[] = [];
  for (const [model, opts] of [
    ["claude-haiku-4-5", { session: "sess-alpha" }],
    ["svc:cascade", { session: "sess-alpha" }],
    ["gpt-4o-mini", { session: "sess-beta" }],
    ["gpt-4o-mini", {}],
    ["gpt-4o-mini", { stream: true }],
  ] as const) {
    const res = await chat(w.url, model, opts);
    await res.text();
    statuses.push(res.status);
  }
  await w.relay.relay.writer.flush();
  return statuses;
}
