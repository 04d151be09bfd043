// `chat.completion` response body ↔ IR ChatResponse.
import { randomHex } from "../../ids.ts";
import type { ChatResponse, ContentBlock } from "../../ir.ts";
import { decodeAssistantMessage } from "./assistant-message.ts";
import { decodeFinishReason, encodeFinishReason } from "./finish-reason.ts";
import { definedOnly } from "../shared/guards.ts";
import { expectArray, expectObject, numberOr, stringOr, type Json } from "./shape.ts";
import { decodeUsage, encodeUsage } from "./usage.ts";

/** Only the first choice is read: the gateway never asks vendors for n > 1 on its own. */
export function decodeResponse(body: unknown): ChatResponse {
  const b = expectObject(body, "response");
  const choice = expectObject(expectArray(b.choices, "choices")[0], "choices[0]");
  const message = expectObject(choice.message, "choices[0].message");
  const refused = typeof message.refusal === "string" && message.refusal !== "";
  return definedOnly<ChatResponse>({
    id: stringOr(b.id, ""),
    model: stringOr(b.model, ""),
    content: decodeAssistantMessage(message, "choices[0].message"),
    stopReason: refused ? "refusal" : decodeFinishReason(choice.finish_reason),
    usage: decodeUsage(b.usage),
    created: typeof b.created === "number" ? b.created : undefined,
  });
}

export function encodeResponse(res: ChatResponse, opts: { model: string }): Json {
  const text = joinText(res.content, "text");
  const reasoning = joinText(res.content, "thinking");
  const toolCalls = res.content.flatMap((b) =>
    b.type === "tool_use"
      ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }]
      : [],
  );
  const message: Json = { role: "assistant", content: text };
  // A refusal travels in its own field, as OpenAI models send it.
  if (res.stopReason === "refusal") Object.assign(message, { content: null, refusal: text ?? "" });
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: chatCompletionId(res.id),
    object: "chat.completion",
    created: numberOr(res.created, nowSeconds()),
    model: opts.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: encodeFinishReason(res.stopReason) }],
    usage: encodeUsage(res.usage),
  };
}

/** Text of all blocks of one kind, or null when there are none (OpenAI's "no content"). */
function joinText(content: ContentBlock[], kind: "text" | "thinking"): string | null {
  const texts = content.flatMap((b) => (b.type === kind && "text" in b ? [b.text] : []));
  return texts.length > 0 ? texts.join("") : null;
}

/**
 * Keeps ids that already carry a vendor prefix (`chatcmpl-…`, `msg_…`, `gen-…`);
 * bare ids (DeepSeek's UUIDs, Mistral's hex) get OpenAI's `chatcmpl-` prefix.
 */
const VENDOR_PREFIX = /^[A-Za-z]+[-_]/;

export function chatCompletionId(id: string): string {
  if (VENDOR_PREFIX.test(id)) return id;
  return `chatcmpl-${id || randomHex(32)}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
