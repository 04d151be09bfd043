// Non-streaming /api/chat response <-> IR ChatResponse, plus the usage and
// done_reason mappings the stream codecs share.
import type { ChatResponse, StopReason, Usage } from "../../ir.ts";
import { promptTokens } from "../../ir.ts";
import { prefixedId } from "../../ids.ts";
import { CallIds } from "../shared/call-ids.ts";
import { isRecord, optNumber, optString, requireRecord, type JsonObject } from "../shared/guards.ts";
import { assistantBlocks, assistantMessage } from "./message.ts";

export function decodeResponse(body: unknown): ChatResponse {
  const res = requireRecord(body, "body");
  const content = assistantBlocks(isRecord(res.message) ? res.message : {}, new CallIds(() => prefixedId("call")));
  const created = Date.parse(optString(res.created_at) ?? "");
  return {
    id: prefixedId("resp"), // Ollama responses have no id
    model: optString(res.model) ?? "",
    content,
    stopReason: decodeDoneReason(res.done_reason, content.some((b) => b.type === "tool_use")),
    usage: decodeUsage(res),
    ...(!Number.isNaN(created) && { created: Math.floor(created / 1000) }),
  };
}

/** "stop" also ends a turn with tool calls; "load"/"unload" answer empty requests. */
export function decodeDoneReason(reason: unknown, madeToolCall: boolean): StopReason {
  if (reason === "length") return "max_tokens";
  return madeToolCall ? "tool_use" : "end_turn";
}

export const encodeDoneReason = (stop: StopReason): string => (stop === "max_tokens" ? "length" : "stop");

/** Ollama reports no cache figures; prompt_eval_count is the whole evaluated prompt. */
export function decodeUsage(chunk: JsonObject): Usage {
  return {
    inputTokens: optNumber(chunk.prompt_eval_count) ?? 0,
    outputTokens: optNumber(chunk.eval_count) ?? 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

export const encodeUsage = (usage: Usage): JsonObject => ({
  prompt_eval_count: promptTokens(usage),
  eval_count: usage.outputTokens,
});

export const createdAt = (seconds?: number): string =>
  (seconds === undefined ? new Date() : new Date(seconds * 1000)).toISOString();

export function encodeResponse(res: ChatResponse, opts: { model: string }): JsonObject {
  return {
    model: opts.model,
    created_at: createdAt(res.created),
    message: assistantMessage(res.content),
    done: true,
    done_reason: encodeDoneReason(res.stopReason),
    ...encodeUsage(res.usage),
  };
}
