// Non-streaming generateContent response <-> IR ChatResponse.
import type { ChatResponse } from "../../ir.ts";
import { prefixedId } from "../../ids.ts";
import { CallIds, ToolNames } from "../shared/call-ids.ts";
import { decodeFinishReason, encodeFinishReason } from "./finish.ts";
import { isRecord, optString, records, requireRecord, type JsonObject } from "../shared/guards.ts";
import { decodeParts, encodeParts } from "./parts.ts";
import { decodeUsage, encodeUsage } from "./usage.ts";

export function decodeResponse(body: unknown): ChatResponse {
  const res = requireRecord(body, "body");
  const candidate = records(res.candidates)[0];
  const content = isRecord(candidate?.content) ? decodeParts(candidate.content.parts, new CallIds(() => prefixedId("call"))) : [];
  const blocked = isRecord(res.promptFeedback) && res.promptFeedback.blockReason !== undefined;
  const created = createdSeconds(res.createTime);
  return {
    id: optString(res.responseId) ?? prefixedId("resp"),
    model: optString(res.modelVersion) ?? "",
    content,
    stopReason: blocked
      ? "content_filter"
      : decodeFinishReason(optString(candidate?.finishReason), content.some((b) => b.type === "tool_use")),
    usage: decodeUsage(res.usageMetadata),
    ...(created !== undefined && { created }),
  };
}

/** Vertex reports `createTime` (RFC 3339); the IR wants Unix seconds. */
export function createdSeconds(createTime: unknown): number | undefined {
  const ms = typeof createTime === "string" ? Date.parse(createTime) : Number.NaN;
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

export function encodeResponse(res: ChatResponse, opts: { model: string }): JsonObject {
  return {
    candidates: [
      {
        content: { role: "model", parts: encodeParts(res.content, new ToolNames(), "content") },
        finishReason: encodeFinishReason(res.stopReason),
        index: 0,
      },
    ],
    usageMetadata: encodeUsage(res.usage),
    modelVersion: opts.model,
    responseId: res.id,
  };
}
