// finish_reason ↔ IR stop reason. Chat completions cannot tell a stop sequence
// from a natural end, so "stop" decodes to end_turn.
import type { StopReason } from "../../ir.ts";

export function decodeFinishReason(reason: unknown): StopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "content_filter";
    case "insufficient_system_resource": // DeepSeek: generation cut off by server load
      return "error";
    default:
      return "end_turn";
  }
}

export function encodeFinishReason(reason: StopReason): string {
  switch (reason) {
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default: // end_turn, stop_sequence, refusal (flagged by `refusal`), pause_turn, error
      return "stop";
  }
}
