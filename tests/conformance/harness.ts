/**
 * The conformance suite's world: one fake vendor per provider family, a real
 * Relay pointed at them, and the official SDKs pointed at Relay.
 */
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startFakeVendor, type FakeVendor, type ReceivedRequest, type VendorKind } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

/** Distinct planted key per party, so a leak is attributable. */
export const KEYS = {
  openai: "sk-vendor-openai-7f3a",
  anthropic: "sk-ant-vendor-anthropic-91bc",
  gemini: "AIza-vendor-gemini-44de",
  compat: "sk-vendor-compat-0c1e",
  /** What the client SDKs send to Relay. */
  clientOpenAI: "sk-client-openai-5d2f",
  clientAnthropic: "sk-ant-client-anthropic-e8a0",
} as const;

/** The model each vendor family is reached with. */
export const MODELS: Record<VendorKind, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-haiku-4-5",
  gemini: "gemini-2.5-flash",
  ollama: "ollama:llama3.2",
};

export const VENDOR_KINDS: VendorKind[] = ["openai", "anthropic", "gemini", "ollama"];

/** A vendor as the clients reach it: a fake, the model that routes there, and Relay's provider name for it. */
export interface Target {
  name: string;
  fake: VendorKind;
  model: string;
  provider: string;
  /** Whether the catalog knows the model to reason: reasoning settings reach only such models. */
  reasons: boolean;
}

/** Every vendor format, and an OpenAI-compatible preset (DeepSeek's chat completions, served by the OpenAI fake). */
export const TARGETS: Target[] = [
  { name: "anthropic", fake: "anthropic", model: MODELS.anthropic, provider: "anthropic", reasons: true },
  { name: "openai", fake: "openai", model: MODELS.openai, provider: "openai", reasons: false },
  { name: "gemini", fake: "gemini", model: MODELS.gemini, provider: "google", reasons: true },
  // A model the catalog does not know may reason: its settings are sent.
  { name: "ollama", fake: "ollama", model: MODELS.ollama, provider: "ollama", reasons: true },
  { name: "openai-compatible", fake: "openai", model: "deepseek-chat", provider: "deepseek", reasons: false },
];

export interface World {
  relay: TestRelay;
  fakes: Record<VendorKind, FakeVendor>;
  openai: OpenAI;
  anthropic: Anthropic;
  stop(): Promise<void>;
}

/** Env wiring every provider family (and the OpenAI-compatible presets) to its fake. */
export function vendorEnv(fakes: Record<VendorKind, FakeVendor>): Record<string, string> {
  const compat = `${fakes.openai.url}/v1`;
  return {
    OPENAI_BASE_URL: compat,
    OPENAI_API_KEY: KEYS.openai,
    ANTHROPIC_BASE_URL: fakes.anthropic.url,
    ANTHROPIC_API_KEY: KEYS.anthropic,
    GEMINI_BASE_URL: fakes.gemini.url,
    GEMINI_API_KEY: KEYS.gemini,
    OLLAMA_HOST: fakes.ollama.url,
    XAI_BASE_URL: compat,
    XAI_API_KEY: KEYS.compat,
    DEEPSEEK_BASE_URL: compat,
    DEEPSEEK_API_KEY: KEYS.compat,
    GROQ_BASE_URL: compat,
    GROQ_API_KEY: KEYS.compat,
    MISTRAL_BASE_URL: compat,
    MISTRAL_API_KEY: KEYS.compat,
  };
}

export async function startFakes(): Promise<Record<VendorKind, FakeVendor>> {
  const [openai, anthropic, gemini, ollama] = await Promise.all(VENDOR_KINDS.map((k) => startFakeVendor(k)));
  return { openai: openai!, anthropic: anthropic!, gemini: gemini!, ollama: ollama! };
}

export function sdkClients(relayUrl: string): { openai: OpenAI; anthropic: Anthropic } {
  // No retries: a conformance failure must surface, not be papered over.
  return {
    openai: new OpenAI({ baseURL: `${relayUrl}/v1`, apiKey: KEYS.clientOpenAI, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: relayUrl, apiKey: KEYS.clientAnthropic, maxRetries: 0 }),
  };
}

/** Fakes + a Relay wired to all of them; `env` overrides (undefined removes) variables. */
export async function startWorld(opts: { env?: Record<string, string | undefined>; config?: Record<string, unknown> } = {}): Promise<World> {
  const fakes = await startFakes();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...vendorEnv(fakes), ...opts.env })) if (v !== undefined) env[k] = v;
  const relay = await startRelay({ env, config: opts.config });
  return {
    relay,
    fakes,
    ...sdkClients(relay.url),
    async stop() {
      await relay.stop();
      await Promise.all(Object.values(fakes).map((f) => f.close()));
    },
  };
}

export function resetFakes(world: World): void {
  for (const f of Object.values(world.fakes)) f.reset();
}

/** The chat calls a fake received (listing and count_tokens calls excluded). */
export function chatCalls(fake: FakeVendor): ReceivedRequest[] {
  return fake.requests.filter((r) => r.method === "POST" && !r.path.endsWith("/count_tokens"));
}

/** A 1×1 PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
export const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

/** A fetch for a client SDK that keeps each request body it sends: the bytes a passthrough must deliver. */
export function tappedFetch(sent: string[]): typeof fetch {
  const tap = (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (typeof init?.body !== "string") throw new Error("the tap expects the client to send its body as a string");
    sent.push(init.body);
    return fetch(input, init);
  };
  return tap as typeof fetch;
}

/** Routes the virtual model `svc:fast` (the simple tier) to `model`, through the config API as an operator would. */
export async function pinFastTier(world: World, model: string): Promise<void> {
  const res = await fetch(`${world.relay.url}/control/config`, {
    method: "POST",
    headers: world.relay.adminJson,
    body: JSON.stringify({ routing: { strategies: { complexity: { tiers: { simple: model } } } } }),
  });
  if (res.status !== 200) throw new Error(`config patch refused: ${res.status} ${await res.text()}`);
}
