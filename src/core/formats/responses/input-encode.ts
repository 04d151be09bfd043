// IR messages → a request's `input` items. A user turn becomes a message item (text and image
// parts) and one function_call_output per tool result; an assistant turn becomes reasoning,
// message and function_call items in the order the blocks came; a call of a custom tool and its
// result go as custom_tool_call and custom_tool_call_output.
import type { ContentBlock, ImageBlock, Message, TextBlock, ToolDefinition, ToolResultBlock } from "../../ir.ts";
import { stringifyClient } from "../../client-json.ts";
import type { Json } from "../openai/shape.ts";
import { customCallItem, customInput, isCustomTool } from "./custom-tools.ts";
import { reasoningItem } from "./items-encode.ts";

/** The request's tools, and the ids of the custom tool calls met so far (their results follow them). */
interface Calls {
  tools: ToolDefinition[] | undefined;
  custom: Set<string> | undefined;
}

export function encodeInput(messages: Message[], dropped: string[], tools?: ToolDefinition[]): Json[] {
  const items: Json[] = [];
  const calls: Calls = { tools, custom: undefined };
  messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    if (m.verbatim) {
      if (m.verbatim.format === "responses") items.push(m.verbatim.value as Json);
      else dropped.push(`${path} (an entry of an unknown role)`);
    } else if (m.role === "user") encodeUserTurn(m.content, path, items, dropped, calls);
    else if (m.role === "system") encodeSystemTurn(m.content, path, items, dropped);
    else encodeAssistantTurn(m.content, path, items, dropped, calls);
  });
  return items;
}

/** A mid-conversation instruction stays in place, as a developer message (OpenAI's name for it). */
function encodeSystemTurn(content: ContentBlock[], path: string, items: Json[], dropped: string[]): void {
  const parts: Json[] = [];
  content.forEach((b, j) => {
    if (b.type === "text") parts.push(inputText(b));
    else dropped.push(`${path}.content[${j}] (${b.type} in a system message)`);
  });
  if (parts.length > 0) items.push({ role: "developer", content: parts });
}

function encodeUserTurn(content: ContentBlock[], path: string, items: Json[], dropped: string[], calls: Calls): void {
  let parts: Json[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ role: "user", content: parts });
    parts = [];
  };
  content.forEach((b, j) => {
    switch (b.type) {
      case "text":
        parts.push(inputText(b));
        break;
      case "image":
        parts.push(inputImage(b));
        break;
      case "tool_result":
        flush();
        items.push(functionCallOutput(b, calls.custom?.has(b.toolUseId) === true));
        break;
      case "opaque":
        if (b.format !== "responses") dropped.push(`${path}.content[${j}] (${b.format} block)`);
        else if (isPart(b.value)) parts.push(b.value as Json);
        else {
          flush();
          items.push(b.value as Json);
        }
        break;
      default:
        dropped.push(`${path}.content[${j}] (${b.type} in a user turn)`);
    }
  });
  flush();
}

function encodeAssistantTurn(content: ContentBlock[], path: string, items: Json[], dropped: string[], calls: Calls): void {
  let texts: Json[] = [];
  const flush = () => {
    if (texts.length > 0) items.push({ type: "message", role: "assistant", content: texts });
    texts = [];
  };
  content.forEach((b, j) => {
    if (b.type === "text") return void texts.push({ type: "output_text", text: b.text });
    flush();
    switch (b.type) {
      case "tool_use":
        if (isCustomTool(calls.tools, b.name)) {
          (calls.custom ??= new Set()).add(b.id);
          items.push(customCallItem(undefined, b, customInput(b.input)));
        } else items.push({ type: "function_call", call_id: b.id, name: b.name, arguments: stringifyClient(b.input ?? {}, "input") });
        break;
      case "thinking":
        // Only reasoning OpenAI issued (its encrypted content) can be sent back; other vendors' is unreadable to it.
        if (b.signature) items.push(reasoningItem(undefined, b.text, b.signature));
        break;
      case "redacted_thinking":
        break;
      case "opaque":
        if (b.format === "responses") items.push(b.value as Json);
        else dropped.push(`${path}.content[${j}] (${b.format} block)`);
        break;
      default:
        dropped.push(`${path}.content[${j}] (${b.type} in an assistant turn)`);
    }
  });
  flush();
}

/** An opaque content part (input_file, input_audio…) rather than a whole item. */
const isPart = (v: unknown): boolean => typeof v === "object" && v !== null && String((v as Json).type).startsWith("input_");

const inputText = (b: TextBlock): Json => ({ type: "input_text", text: b.text });

function inputImage(b: ImageBlock): Json {
  const url = b.source.kind === "base64" ? `data:${b.source.mediaType};base64,${b.source.data}` : b.source.url;
  return { type: "input_image", image_url: url, detail: "auto" };
}

/** A result that is text only goes as a string, which every Responses server accepts. */
function functionCallOutput(b: ToolResultBlock, custom: boolean): Json {
  const textOnly = b.content.every((c) => c.type === "text");
  const output = textOnly
    ? b.content.map((c) => (c as TextBlock).text).join("")
    : b.content.map((c) => (c.type === "text" ? inputText(c) : inputImage(c)));
  return { type: custom ? "custom_tool_call_output" : "function_call_output", call_id: b.toolUseId, output };
}
