// Responses `response` object ↔ IR ChatResponse, and the status ↔ stop reason mapping the
// stream codecs share.
import { randomHex } from "../../ids.ts";
import type { ChatResponse, ContentBlock, StopReason } from "../../ir.ts";
import { definedOnly } from "../shared/guards.ts";
import { expectArray, expectObject, isObject, numberOr, stringOr, type Json } from "../openai/shape.ts";
import { decodeAssistantContent, decodeFunctionCall, decodeReasoning, opaqueItem } from "./items-decode.ts";
import { decodeCustomCall } from "./custom-tools.ts";
import { encodeOutputItems } from "./items-encode.ts";
import { decodeUsage, encodeUsage } from "./usage.ts";
import type { ResponseEncoderOptions } from "../types.ts";

export function decodeResponse(body: unknown): ChatResponse {
  const b = expectObject(body, "response");
  const content: ContentBlock[] = [];
  let refused = false;
  expectArray(b.output, "output").forEach((entry, i) => {
    const path = `output[${i}]`;
    const item = expectObject(entry, path);
    if (item.type === "message") {
      const decoded = decodeAssistantContent(item.content, `${path}.content`);
      refused ||= decoded.refused;
      content.push(...decoded.blocks);
    } else if (item.type === "reasoning") {
      // One with neither summary nor encrypted content (stored by OpenAI) says nothing, as in a stream.
      const thinking = decodeReasoning(item, path);
      if (thinking.text !== "" || thinking.signature) content.push(thinking);
    } else if (item.type === "function_call") content.push(decodeFunctionCall(item, path));
    else if (item.type === "custom_tool_call") content.push(decodeCustomCall(item, path));
    else content.push(opaqueItem(item));
  });
  const toolCalls = content.some((c) => c.type === "tool_use");
  return definedOnly<ChatResponse>({
    id: stringOr(b.id, ""),
    model: stringOr(b.model, ""),
    content,
    stopReason: decodeStatus(b.status, b.incomplete_details, toolCalls, refused),
    usage: decodeUsage(b.usage),
    created: typeof b.created_at === "number" ? b.created_at : undefined,
  });
}

export function encodeResponse(res: ChatResponse, opts: ResponseEncoderOptions): Json {
  const refused = res.stopReason === "refusal";
  return responseObject(responseId(res.id), opts.model, numberOr(res.created, nowSeconds()), {
    ...encodeStatus(res.stopReason),
    output: encodeOutputItems(res.content, refused, opts.tools),
    usage: encodeUsage(res.usage),
  });
}

/** A response's stop reason: its status, what ended an incomplete one, and what it produced. */
export function decodeStatus(status: unknown, incomplete: unknown, toolCalls: boolean, refused: boolean): StopReason {
  switch (status) {
    case "incomplete":
      return isObject(incomplete) && incomplete.reason === "content_filter" ? "content_filter" : "max_tokens";
    case "failed":
    case "cancelled":
      return "error";
    default:
      if (toolCalls) return "tool_use";
      return refused ? "refusal" : "end_turn";
  }
}

/** The status members of a finished response object. */
export function encodeStatus(reason: StopReason): Json {
  switch (reason) {
    case "max_tokens":
      return { status: "incomplete", error: null, incomplete_details: { reason: "max_output_tokens" } };
    case "content_filter":
      return { status: "incomplete", error: null, incomplete_details: { reason: "content_filter" } };
    case "error":
      return { status: "failed", error: { code: "server_error", message: "the vendor ended the answer with an error" }, incomplete_details: null };
    default:
      return { status: "completed", error: null, incomplete_details: null };
  }
}

/** A response object; `rest` holds status, output and usage (an in-progress one has none yet). */
export function responseObject(id: string, model: string, createdAt: number, rest: Json): Json {
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    model,
    output: [],
    usage: null,
    ...rest,
  };
}

/** Keeps `resp_` ids; another vendor's id gets the prefix Responses clients expect. */
export function responseId(id: string): string {
  return id.startsWith("resp_") ? id : `resp_${id || randomHex(48)}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

