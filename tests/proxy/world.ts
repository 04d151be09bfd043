/**
 * The proxy suite's world: an Anthropic and an OpenAI fake vendor, a real Relay
 * pointed at them (driven by a ManualClock), and small client helpers.
 */
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

const KEYS = { anthropic: "sk-ant-test-anthropic", openai: "sk-test-openai" } as const;

export interface World {
  relay: TestRelay;
  url: string;
  anthropic: FakeVendor;
  openai: FakeVendor;
  clock: ManualClock;
  stop(): Promise<void>;
}

export interface WorldOptions {
  config?: Record<string, unknown>;
  /** Vendor key variables left unset (the fakes' base URLs are always set). */
  withoutKeys?: Array<"ANTHROPIC_API_KEY" | "OPENAI_API_KEY">;
  /** Extra env variables. */
  env?: Record<string, string>;
  /** Reuse a RELAY_HOME (see startRelay). */
  home?: string;
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const [anthropic, openai] = await Promise.all([startFakeVendor("anthropic"), startFakeVendor("openai")]);
  const env: Record<string, string> = {
    ANTHROPIC_BASE_URL: anthropic.url,
    ANTHROPIC_API_KEY: KEYS.anthropic,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    OPENAI_API_KEY: KEYS.openai,
    ...opts.env,
  };
  for (const k of opts.withoutKeys ?? []) delete env[k];
  // Real time as the start, so budget windows and run timestamps agree.
  const clock = new ManualClock(Date.now());
  const relay = await startRelay({ env, config: opts.config, clock, home: opts.home });
  return {
    relay,
    url: relay.url,
    anthropic,
    openai,
    clock,
    async stop() {
      await relay.stop();
      await Promise.all([anthropic.close(), openai.close()]);
    },
  };
}

export const openaiClient = (url: string, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-client", maxRetries: 0, defaultHeaders: headers });

export const anthropicClient = (url: string) => new Anthropic({ baseURL: url, apiKey: "sk-ant-client", maxRetries: 0 });

/** POST a JSON body (object or raw text) and return the raw response. */
export function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** GET a JSON body. */
export async function getJson(url: string, path: string, headers: Record<string, string> = {}): Promise<any> {
  return (await fetch(`${url}${path}`, { headers })).json();
}

/** The `error` object of an error response (every style nests it under `error`). */
export const errorOf = async (res: Response) => ((await res.json()) as any).error;

/** A minimal chat-completions request. */
export const chatBody = (model: string, content = "Say hi", extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content }],
  ...extra,
});

/** A minimal messages-API request. */
export const messagesBody = (model: string, content = "Say hi", extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content }],
  ...extra,
});

/** The text of an OpenAI-format SSE stream, and whether it ended with [DONE] and no error frame. */
export function openaiStreamText(sse: string): { text: string; done: boolean; errored: boolean } {
  let text = "";
  let done = false;
  let errored = false;
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const data = line.slice(6).trim();
    if (data === "[DONE]") {
      done = true;
      continue;
    }
    const chunk = JSON.parse(data);
    if (chunk.error) errored = true;
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  return { text, done, errored };
}

/** The text of an Anthropic-format SSE stream, and whether it reached message_stop without an error event. */
export function anthropicStreamText(sse: string): { text: string; complete: boolean } {
  let text = "";
  let stopped = false;
  let errored = false;
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    if (event.type === "message_stop") stopped = true;
    if (event.type === "error") errored = true;
  }
  return { text, complete: stopped && !errored };
}

/**
 * Read a streamed body to its end; `stalled` when no byte came for `stallMs`
 * (a liveness bound against a hung stream, far above the vendor's pacing).
 */
export async function readStream(res: Response, stallMs = 3000): Promise<{ text: string; stalled: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stall = new Promise<"stall">((resolve) => (timer = setTimeout(() => resolve("stall"), stallMs)));
    const next = await Promise.race([reader.read(), stall]);
    clearTimeout(timer);
    if (next === "stall") {
      await reader.cancel().catch(() => {});
      return { text, stalled: true };
    }
    if (next.done) return { text, stalled: false };
    text += decoder.decode(next.value, { stream: true });
  }
}

/** Poll `check` until it returns a value other than undefined (bounded; the machine is shared). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** The settled run log, newest first. */
export async function runs(world: World) {
  await world.relay.relay.writer.flush();
  return (await world.relay.relay.store.runs.listRuns({ limit: 1000, offset: 0 })).runs;
}
