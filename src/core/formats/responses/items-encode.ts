// IR content → a response's `output` items: each text block a `message`, each thinking block a
// `reasoning` item, each tool call a `function_call` (a `custom_tool_call` for a custom tool of
// the request's `tools`). Ids are made here (`msg_`, `rs_`, `fc_`, `ctc_`), as clients of the API
// expect every item to carry one.
import { prefixedId } from "../../ids.ts";
import type { ContentBlock, ToolDefinition, ToolUseBlock } from "../../ir.ts";
import type { Json } from "../openai/shape.ts";
import { customCallItem, customInput, isCustomTool } from "./custom-tools.ts";

export function encodeOutputItems(content: ContentBlock[], refused: boolean, tools?: readonly ToolDefinition[]): Json[] {
  const items: Json[] = [];
  for (const b of content) {
    if (b.type === "text") items.push(messageItem(prefixedId("msg"), b.text, refused));
    else if (b.type === "thinking") items.push(reasoningItem(prefixedId("rs"), b.text, b.signature));
    else if (b.type === "tool_use" && isCustomTool(tools, b.name)) items.push(customCallItem(prefixedId("ctc"), b, customInput(b.input)));
    else if (b.type === "tool_use") items.push(functionCallItem(prefixedId("fc"), b, JSON.stringify(b.input ?? {})));
    else if (b.type === "opaque" && b.format === "responses") items.push(b.value as Json);
  }
  return items;
}

export function messageItem(id: string, text: string, refused: boolean, status = "completed"): Json {
  const part = refused ? { type: "refusal", refusal: text } : { type: "output_text", text, annotations: [] };
  return { id, type: "message", status, role: "assistant", content: [part] };
}

/** A reasoning item; `id` is left out where the item is input (a client may send it without one). */
export function reasoningItem(id: string | undefined, text: string, signature: string | undefined): Json {
  const item: Json = id === undefined ? { type: "reasoning" } : { id, type: "reasoning" };
  item.summary = text === "" ? [] : [{ type: "summary_text", text }];
  if (signature) item.encrypted_content = signature;
  return item;
}

export function functionCallItem(id: string, b: Pick<ToolUseBlock, "id" | "name">, args: string, status = "completed"): Json {
  return { id, type: "function_call", status, arguments: args, call_id: b.id, name: b.name };
}
