/**
 * The fault-injection world: fake vendors whose answer is chosen by a case tag
 * the client puts in its prompt (`case:<tag>`), so many faulty requests can run
 * at once, and client helpers that report what each official SDK saw.
 */
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import type { FakeVendor, ReceivedRequest, Reply, VendorKind } from "../fakes/types.ts";

/** A long answer, so stream faults strike after the first event and before the last. */
export const LONG_TEXT = "one two three four five six seven eight nine ten eleven twelve";

export interface Script {
  /** Replies for successive vendor calls of one request (the last one repeats). */
  replies: Reply[];
  /** Only this vendor misbehaves (fallback cases); the other answers normally. */
  only?: VendorKind;
}

const TAG = /case:([\w.-]+)/;

/**
 * Installs a default reply on each fake that looks up the request's tag: the
 * n-th vendor call of a tagged request gets the n-th scripted reply.
 */
export function scriptVendors(vendors: FakeVendor[], kinds: VendorKind[], scripts: Map<string, Script>): void {
  const calls = new Map<string, number>();
  vendors.forEach((fake, i) => {
    const kind = kinds[i]!;
    fake.setDefault((req: ReceivedRequest) => {
      const tag = TAG.exec(req.bodyText)?.[1];
      const script = tag === undefined ? undefined : scripts.get(tag.split(".")[0]!);
      if (!script || (script.only && script.only !== kind)) return { text: LONG_TEXT };
      const n = calls.get(tag!) ?? 0;
      calls.set(tag!, n + 1);
      return script.replies[Math.min(n, script.replies.length - 1)]!;
    });
  });
}

/** What a client observed: an HTTP error, an error in the middle of a stream, or an answer. */
export type Seen =
  | { kind: "http-error"; status: number; message: string; wellFormed: boolean; retryAfter: string | null }
  | { kind: "stream-error"; message: string; wellFormed: boolean; textBefore: number }
  | { kind: "answer"; textLength: number; fallbackUsed: boolean };

export interface ClientCall {
  url: string;
  model: string;
  tag: string;
  stream: boolean;
}

const prompt = (tag: string) => `case:${tag} please answer`;
const meta = (tag: string) => ({ "x-svc-metadata": JSON.stringify({ case: tag }) });

/** Calls Relay through the official OpenAI SDK. */
export async function viaOpenAI(c: ClientCall): Promise<Seen> {
  const client = new OpenAI({ baseURL: `${c.url}/v1`, apiKey: "sk-client", maxRetries: 0, defaultHeaders: meta(c.tag) });
  const messages = [{ role: "user" as const, content: prompt(c.tag) }];
  let text = 0;
  try {
    if (!c.stream) {
      const { data, response } = await client.chat.completions.create({ model: c.model, messages }).withResponse();
      return { kind: "answer", textLength: data.choices[0]?.message.content?.length ?? 0, fallbackUsed: response.headers.get("x-svc-fallback-used") === "true" };
    }
    const { data: stream, response } = await client.chat.completions.create({ model: c.model, messages, stream: true }).withResponse();
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content?.length ?? 0;
    return { kind: "answer", textLength: text, fallbackUsed: response.headers.get("x-svc-fallback-used") === "true" };
  } catch (e) {
    if (!(e instanceof OpenAI.APIError)) throw e;
    // The SDK keeps the body's `error` object: an OpenAI-shaped error has a string message and type.
    const body = e.error as { message?: unknown; type?: unknown } | undefined;
    const wellFormed = typeof body?.message === "string" && typeof body?.type === "string";
    const message = String(body?.message ?? e.message);
    if (e.status === undefined) return { kind: "stream-error", message, wellFormed, textBefore: text };
    return { kind: "http-error", status: e.status, message, wellFormed, retryAfter: e.headers?.get("retry-after") ?? null };
  }
}

/** Calls Relay's /v1/messages through the official Anthropic SDK. */
export async function viaAnthropic(c: ClientCall): Promise<Seen> {
  const client = new Anthropic({ baseURL: c.url, apiKey: "sk-ant-client", maxRetries: 0, defaultHeaders: meta(c.tag) });
  const params = { model: c.model, max_tokens: 64, messages: [{ role: "user" as const, content: prompt(c.tag) }] };
  let text = 0;
  try {
    if (!c.stream) {
      const { data, response } = await client.messages.create(params).withResponse();
      const first = data.content[0];
      return { kind: "answer", textLength: first?.type === "text" ? first.text.length : 0, fallbackUsed: response.headers.get("x-svc-fallback-used") === "true" };
    }
    const { data: stream, response } = await client.messages.create({ ...params, stream: true }).withResponse();
    for await (const ev of stream) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text.length;
    return { kind: "answer", textLength: text, fallbackUsed: response.headers.get("x-svc-fallback-used") === "true" };
  } catch (e) {
    if (!(e instanceof Anthropic.APIError)) throw e;
    // An Anthropic-shaped error body: {type: "error", error: {type, message}}.
    const body = e.error as { type?: unknown; error?: { type?: unknown; message?: unknown } } | undefined;
    const wellFormed = body?.type === "error" && typeof body.error?.type === "string" && typeof body.error?.message === "string";
    const message = String(body?.error?.message ?? e.message);
    if (e.status === undefined) return { kind: "stream-error", message, wellFormed, textBefore: text };
    return { kind: "http-error", status: e.status, message, wellFormed, retryAfter: e.headers?.get("retry-after") ?? null };
  }
}
