// Ollama assistant messages `{content, thinking, tool_calls}` <-> IR blocks,
// shared by requests (history), responses and stream chunks.
import type { ContentBlock } from "../../ir.ts";
import type { CallIds } from "../shared/call-ids.ts";
import { isRecord, optString, records, type JsonObject } from "../shared/guards.ts";

/** Ollama tool calls carry no id (newer servers may add one), so `ids` supplies it. */
export function assistantBlocks(message: JsonObject, ids: CallIds): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const thinking = optString(message.thinking);
  if (thinking) blocks.push({ type: "thinking", text: thinking });
  const content = optString(message.content);
  if (content) blocks.push({ type: "text", text: content });
  for (const call of records(message.tool_calls)) {
    const fn = isRecord(call.function) ? call.function : {};
    const name = optString(fn.name) ?? "";
    blocks.push({ type: "tool_use", id: ids.call(name, optString(call.id)), name, input: isRecord(fn.arguments) ? fn.arguments : {} });
  }
  return blocks;
}

export function assistantMessage(blocks: ContentBlock[]): JsonObject {
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const thinking = blocks.flatMap((b) => (b.type === "thinking" ? [b.text] : [])).join("");
  const toolCalls = blocks.flatMap((b) => (b.type === "tool_use" ? [toolCall(b.name, b.input)] : []));
  return {
    role: "assistant",
    content: text,
    ...(thinking && { thinking }),
    ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
  };
}

export const toolCall = (name: string, input: unknown): JsonObject => ({
  function: { name, arguments: isRecord(input) ? input : {} },
});
