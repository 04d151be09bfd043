// Non-streaming message object ↔ IR. Opaque blocks (server tool calls and
// results, compaction, …) are kept and re-emitted in place.
import type { ChatResponse } from "../../ir.ts";
import { decodeBlock, encodeBlock } from "./blocks.ts";
import { type Json, array, optString, record, string } from "./read.ts";
import { decodeStopReason, decodeUsage, encodeStopReason, encodeUsage } from "./usage.ts";

export function decodeResponse(body: unknown): ChatResponse {
  const b = record(body, "body");
  const stopSequence = optString(b.stop_sequence, "stop_sequence");
  return {
    id: string(b.id, "id"),
    model: string(b.model, "model"),
    content: array(b.content ?? [], "content").map((block, i) => decodeBlock(block, `content[${i}]`)),
    stopReason: decodeStopReason(b.stop_reason),
    ...(stopSequence === undefined ? {} : { stopSequence }),
    usage: decodeUsage(b.usage),
  };
}

export function encodeResponse(res: ChatResponse, opts: { model: string }): Json {
  return {
    id: res.id,
    type: "message",
    role: "assistant",
    model: opts.model,
    content: res.content.flatMap((b) => encodeBlock(b) ?? []),
    stop_reason: encodeStopReason(res.stopReason),
    stop_sequence: res.stopSequence ?? null,
    usage: encodeUsage(res.usage),
  };
}
