import type { Reply } from "../types.ts";

export const JSON_TYPE = "application/json";

export function randomId(prefix: string): string {
  return prefix + crypto.randomUUID().replaceAll("-", "").slice(0, 24);
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Split text into `parts` contiguous pieces (never cutting a surrogate pair); "" gives none. */
export function splitText(text: string, parts: number): string[] {
  if (text === "") return [];
  const count = Math.max(1, Math.min(Math.floor(parts), text.length));
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= count; i++) {
    let end = i === count ? text.length : Math.round((text.length * i) / count);
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
    if (end > start) out.push(text.slice(start, end));
    start = Math.max(start, end);
  }
  return out;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export const DEFAULT_TEXT_CHUNKS = 3;

export function textPieces(reply: Reply): string[] {
  return splitText(reply.text ?? "", reply.textChunks ?? DEFAULT_TEXT_CHUNKS);
}

/** Tool-call arguments streamed as several fragments, like the vendors do. */
export function argumentFragments(args: Record<string, unknown>): string[] {
  return splitText(JSON.stringify(args), 3);
}

export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/**
 * Token counts with deterministic defaults that do not depend on the request,
 * so a default reply can be rendered once and reused.
 */
export function tokensOf(reply: Reply): Tokens {
  const u = reply.usage ?? {};
  const reasoning = u.reasoning ?? estimate(reply.thinking?.text ?? "");
  const visible = (reply.text ?? "") + (reply.toolCalls ?? []).map((t) => JSON.stringify(t.args)).join("");
  return {
    input: u.input ?? 12,
    output: u.output ?? Math.max(1, estimate(visible)) + reasoning,
    cacheRead: u.cacheRead ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    reasoning,
  };
}

function estimate(text: string): number {
  return Math.ceil(text.length / 4);
}

export type StopReason = NonNullable<Reply["stopReason"]>;

export function stopReasonOf(reply: Reply): StopReason {
  return reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "stop");
}

/** One model id reported by the listing endpoints. */
export const LISTED_MODELS = ["fake-model-small", "fake-model-large"];
