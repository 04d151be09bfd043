// Output items (`message`, `reasoning`, `function_call`) → IR blocks. They read the same in a
// response's `output` and in a request's `input`, where a client sends earlier turns back.
import type { ContentBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "../../ir.ts";
import { CodecError } from "../types.ts";
import { expectArray, expectObject, expectString, isObject, optionalString, type Json } from "../openai/shape.ts";

/** Reasoning summaries are separate paragraphs; the IR holds one text. */
export const SUMMARY_SEPARATOR = "\n\n";

/** An assistant `message` item's parts: `output_text` (or plain `input_text` and strings, as clients send) and `refusal`. */
export function decodeAssistantContent(content: unknown, path: string): { blocks: TextBlock[]; refused: boolean } {
  if (typeof content === "string") return { blocks: content === "" ? [] : [{ type: "text", text: content }], refused: false };
  let refused = false;
  const blocks: TextBlock[] = [];
  expectArray(content, path).forEach((part, i) => {
    const p = expectObject(part, `${path}[${i}]`);
    if (p.type === "refusal") {
      refused = true;
      blocks.push({ type: "text", text: expectString(p.refusal, `${path}[${i}].refusal`) });
    } else if (p.type === "output_text" || p.type === "input_text" || p.type === "text") {
      blocks.push({ type: "text", text: expectString(p.text, `${path}[${i}].text`) });
    } else {
      throw new CodecError(`${path}[${i}].type must be "output_text" or "refusal"`, `${path}[${i}].type`, '"output_text" or "refusal"');
    }
  });
  return { blocks, refused };
}

/**
 * A `reasoning` item: its summaries (or, from models that show it, its reasoning text) joined,
 * and its `encrypted_content` as the signature that must go back unchanged.
 */
export function decodeReasoning(item: Json, path: string): ThinkingBlock {
  const parts = item.summary == null ? [] : expectArray(item.summary, `${path}.summary`);
  let texts = parts.map((s, i) => expectString(expectObject(s, `${path}.summary[${i}]`).text, `${path}.summary[${i}].text`));
  if (texts.length === 0 && Array.isArray(item.content)) texts = item.content.flatMap((c) => (isObject(c) && typeof c.text === "string" ? [c.text] : []));
  const block: ThinkingBlock = { type: "thinking", text: texts.join(SUMMARY_SEPARATOR) };
  const encrypted = optionalString(item.encrypted_content, `${path}.encrypted_content`);
  if (encrypted) block.signature = encrypted;
  return block;
}

/** A `function_call` item; the IR pairs results by `call_id`. */
export function decodeFunctionCall(item: Json, path: string): ToolUseBlock {
  const args = expectString(item.arguments, `${path}.arguments`);
  return {
    type: "tool_use",
    id: expectString(item.call_id, `${path}.call_id`),
    name: expectString(item.name, `${path}.name`),
    input: parseArguments(args, `${path}.arguments`),
  };
}

/** Arguments arrive as JSON text; "" means none. */
export function parseArguments(args: string, path: string): unknown {
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    throw new CodecError(`${path} is not valid JSON`, path, "JSON-encoded arguments string");
  }
}

/** Items the IR has no block for (hosted tool calls, compaction, item references) travel as they are. */
export const opaqueItem = (item: Json): ContentBlock => ({ type: "opaque", format: "responses", value: item });
