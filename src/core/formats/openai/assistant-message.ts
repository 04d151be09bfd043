// An assistant message has the same shape in request history and in a
// response's `choices[].message`, so both decode through here.
import type { ContentBlock, ToolUseBlock } from "../../ir.ts";
import { CodecError } from "../types.ts";
import { expectArray, expectObject, expectString, invalid, type Json } from "./shape.ts";

/** Blocks in the order the model produced them: reasoning, text, tool calls. Empty strings add no block. */
export function decodeAssistantMessage(m: Json, path: string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  // DeepSeek and xAI say `reasoning_content`; Groq and OpenRouter say `reasoning`.
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (reasoning != null) {
    const field = m.reasoning_content != null ? "reasoning_content" : "reasoning";
    const text = expectString(reasoning, `${path}.${field}`);
    if (text !== "") blocks.push({ type: "thinking", text });
  }
  if (typeof m.content === "string") {
    if (m.content !== "") blocks.push({ type: "text", text: m.content });
  } else if (Array.isArray(m.content)) {
    m.content.forEach((part, i) => blocks.push(decodePart(part, `${path}.content[${i}]`)));
  } else if (m.content != null) {
    invalid(`${path}.content`, "string, array of content parts or null", m.content);
  }
  if (m.refusal != null) {
    const refusal = expectString(m.refusal, `${path}.refusal`);
    if (refusal !== "") blocks.push({ type: "text", text: refusal });
  }
  if (m.tool_calls != null) {
    expectArray(m.tool_calls, `${path}.tool_calls`).forEach((call, i) =>
      blocks.push(decodeToolCall(call, `${path}.tool_calls[${i}]`)),
    );
  }
  return blocks;
}

function decodePart(part: unknown, path: string): ContentBlock {
  const p = expectObject(part, path);
  switch (p.type) {
    case "text":
      return { type: "text", text: expectString(p.text, `${path}.text`) };
    case "refusal":
      return { type: "text", text: expectString(p.refusal, `${path}.refusal`) };
    case "thinking": // Mistral's Magistral models: { type: "thinking", thinking: [text parts] }
      return { type: "thinking", text: joinTextParts(p.thinking, `${path}.thinking`) };
    default:
      return invalid(`${path}.type`, '"text", "refusal" or "thinking"', p.type);
  }
}

function joinTextParts(parts: unknown, path: string): string {
  return expectArray(parts, path)
    .map((part, i) => {
      const p = expectObject(part, `${path}[${i}]`);
      return expectString(p.text, `${path}[${i}].text`);
    })
    .join("");
}

function decodeToolCall(call: unknown, path: string): ToolUseBlock {
  const c = expectObject(call, path);
  // Mistral omits `type`; any other value is a non-function tool we cannot represent.
  if (c.type != null && c.type !== "function") invalid(`${path}.type`, '"function"', c.type);
  const fn = expectObject(c.function, `${path}.function`);
  const args = expectString(fn.arguments, `${path}.function.arguments`);
  return {
    type: "tool_use",
    id: expectString(c.id, `${path}.id`),
    name: expectString(fn.name, `${path}.function.name`),
    input: parseArguments(args, `${path}.function.arguments`),
  };
}

/** Tool arguments arrive as a JSON string; some vendors send "" for "no arguments". */
function parseArguments(args: string, path: string): unknown {
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    throw new CodecError(`${path} is not valid JSON`, path, "JSON-encoded arguments string");
  }
}
