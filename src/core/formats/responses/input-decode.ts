// A request's `input` (a string, or a list of items) → IR system text and messages.
//
// Items are flat where the IR has turns: consecutive items of one side (a message, reasoning,
// function and custom tool calls for the assistant; a message and their outputs for the user) join one
// IR message, so tool calls and their results sit in the turns Anthropic and Gemini expect.
// System and developer messages before the conversation are the system text; later ones stay in
// place as IR system messages. A message of a role the IR has no name for is kept whole.
import type { ContentBlock, ImageBlock, Message, TextBlock, ToolResultBlock } from "../../ir.ts";
import { parseDataUrl } from "../shared/images.ts";
import { expectArray, expectObject, expectString, invalid, isObject, type Json } from "../openai/shape.ts";
import { decodeCustomCall } from "./custom-tools.ts";
import { decodeAssistantContent, decodeFunctionCall, decodeReasoning, opaqueItem } from "./items-decode.ts";

export interface DecodedInput {
  system: TextBlock[];
  messages: Message[];
}

export function decodeInput(input: unknown): DecodedInput {
  if (typeof input === "string") return { system: [], messages: [{ role: "user", content: [{ type: "text", text: input }] }] };
  const system: TextBlock[] = [];
  const messages: Message[] = [];
  const turn = (role: Message["role"]): ContentBlock[] => {
    const last = messages[messages.length - 1];
    if (last?.role === role && !last.verbatim) return last.content;
    const content: ContentBlock[] = [];
    messages.push({ role, content });
    return content;
  };
  expectArray(input, "input").forEach((entry, i) => {
    const path = `input[${i}]`;
    const item = expectObject(entry, path);
    // A message item may omit `type` (the "easy input message").
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message":
        decodeMessage(item, path, system, turn, messages);
        break;
      case "function_call":
        turn("assistant").push(decodeFunctionCall(item, path));
        break;
      case "custom_tool_call":
        turn("assistant").push(decodeCustomCall(item, path));
        break;
      case "reasoning":
        turn("assistant").push(decodeReasoning(item, path));
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        turn("user").push(decodeFunctionOutput(item, path));
        break;
      default:
        // Hosted tool calls and their outputs, item references, compaction: kept for OpenAI.
        expectString(type, `${path}.type`);
        turn(conversationSide(messages)).push(opaqueItem(item));
    }
  });
  return { system, messages };
}

/** The side an item the IR cannot read joins: the turn in progress, or the user's. */
function conversationSide(messages: Message[]): Message["role"] {
  const last = messages[messages.length - 1];
  return last?.role === "assistant" ? "assistant" : "user";
}

function decodeMessage(item: Json, path: string, system: TextBlock[], turn: (role: Message["role"]) => ContentBlock[], messages: Message[]): void {
  switch (item.role) {
    case "system":
    case "developer": {
      const texts = decodeUserContent(item.content, `${path}.content`).map((b) => textOnly(b, `${path}.content`));
      (messages.length === 0 ? system : turn("system")).push(...texts);
      break;
    }
    case "user":
      turn("user").push(...decodeUserContent(item.content, `${path}.content`));
      break;
    case "assistant":
      turn("assistant").push(...decodeAssistantContent(item.content, `${path}.content`).blocks);
      break;
    default:
      expectString(item.role, `${path}.role`);
      messages.push({ role: "user", content: [], verbatim: { type: "opaque", format: "responses", value: item } });
  }
}

function textOnly(b: ContentBlock, path: string): TextBlock {
  return b.type === "text" ? b : invalid(path, "text parts (input_text)", b.type);
}

/** User content: a string or input parts. Files and audio have no IR block and stay opaque. */
function decodeUserContent(content: unknown, path: string): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return expectArray(content, path).map((part, i) => decodeInputPart(part, `${path}[${i}]`));
}

function decodeInputPart(part: unknown, path: string): ContentBlock {
  const p = expectObject(part, path);
  switch (p.type) {
    case "input_text":
    case "output_text": // assistant text sent back under a user-side role by some clients
      return { type: "text", text: expectString(p.text, `${path}.text`) };
    case "input_image":
      return decodeImage(p, path) ?? opaqueItem(p);
    default:
      expectString(p.type, `${path}.type`);
      return opaqueItem(p);
  }
}

/** An image by URL or data URL (its `detail` is OpenAI's alone); one by `file_id` stays opaque. */
function decodeImage(p: Json, path: string): ImageBlock | undefined {
  if (p.image_url == null) return undefined;
  const url = expectString(p.image_url, `${path}.image_url`);
  const inline = parseDataUrl(url);
  return { type: "image", source: inline ? { kind: "base64", ...inline } : { kind: "url", url } };
}

function decodeFunctionOutput(item: Json, path: string): ToolResultBlock {
  const output = item.output;
  const content =
    typeof output === "string"
      ? [{ type: "text" as const, text: output }]
      : expectArray(output, `${path}.output`).map((part, i) => resultPart(decodeInputPart(part, `${path}.output[${i}]`), `${path}.output[${i}]`));
  return { type: "tool_result", toolUseId: expectString(item.call_id, `${path}.call_id`), content };
}

function resultPart(b: ContentBlock, path: string): TextBlock | ImageBlock {
  return b.type === "text" || b.type === "image" ? b : invalid(path, "input_text or input_image", isObject(b) ? b.type : b);
}
