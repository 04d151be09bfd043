// Gemini finishReason <-> IR stop reason.
import type { StopReason } from "../../ir.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "LANGUAGE",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

const FAILED = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
  "MISSING_THOUGHT_SIGNATURE",
  "OTHER",
]);

/** Gemini says STOP for tool calls too, so the caller tells whether one was made. */
export function decodeFinishReason(reason: string | undefined, madeToolCall: boolean): StopReason {
  if (reason === "MAX_TOKENS") return "max_tokens";
  if (reason && FILTERED.has(reason)) return "content_filter";
  if (reason && FAILED.has(reason)) return "error";
  return madeToolCall ? "tool_use" : "end_turn";
}

export function encodeFinishReason(stop: StopReason): string {
  switch (stop) {
    case "max_tokens":
      return "MAX_TOKENS";
    case "content_filter":
    case "refusal":
      return "SAFETY";
    case "error":
      return "OTHER";
    default:
      return "STOP";
  }
}
