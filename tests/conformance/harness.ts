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
