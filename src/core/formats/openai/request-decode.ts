// OpenAI chat-completions request body → IR ChatRequest.
import type {
  ChatRequest,
  ContentBlock,
  ImageSource,
  Message,
  ReasoningConfig,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
} from "../../ir.ts";
import { decodeAssistantMessage } from "./assistant-message.ts";
import { definedOnly, unmappedMembers } from "../shared/guards.ts";
import { optTokenLimit } from "../shared/token-limit.ts";
import {
  expectArray,
  expectObject,
  expectString,
  invalid,
  isObject,
  optionalBoolean,
  optionalNumber,
  optionalString,
  type Json,
} from "./shape.ts";

/** Top-level keys with an IR field; every other key is kept in `extra`. */
const MAPPED_KEYS = new Set([
  "model",
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "reasoning_effort",
  "stream",
  "stream_options",
  "user",
]);

const EFFORTS = new Set(["minimal", "low", "medium", "high"]);

export function decodeRequest(body: unknown): ChatRequest {
  const b = expectObject(body, "body");
  const { system, messages } = decodeMessages(expectArray(b.messages, "messages"));
  const streamOptions = b.stream_options == null ? undefined : expectObject(b.stream_options, "stream_options");
  const { reasoning, unmappedEffort } = decodeReasoningEffort(b.reasoning_effort);
  let extra = unmappedMembers(b, MAPPED_KEYS);
  if (unmappedEffort) (extra ??= {}).reasoning_effort = unmappedEffort;
  return definedOnly<ChatRequest>({
    model: expectString(b.model, "model"),
    system: system.length > 0 ? system : undefined,
    messages,
    stream: optionalBoolean(b.stream, "stream") ?? false,
    maxTokens: decodeMaxTokens(b),
    temperature: optionalNumber(b.temperature, "temperature"),
    topP: optionalNumber(b.top_p, "top_p"),
    stop: decodeStop(b.stop),
    tools: b.tools == null ? undefined : expectArray(b.tools, "tools").map((t, i) => decodeTool(t, `tools[${i}]`)),
    toolChoice: decodeToolChoice(b.tool_choice),
    parallelToolCalls: optionalBoolean(b.parallel_tool_calls, "parallel_tool_calls"),
    responseFormat: decodeResponseFormat(b.response_format),
    reasoning,
    includeUsage: optionalBoolean(streamOptions?.include_usage, "stream_options.include_usage"),
    user: optionalString(b.user, "user"),
    extra,
  });
}

/** max_completion_tokens wins; max_tokens is checked too, so that no bad value rides along unchecked. */
function decodeMaxTokens(b: Json): number | undefined {
  const legacy = optTokenLimit(b.max_tokens, "max_tokens");
  return optTokenLimit(b.max_completion_tokens, "max_completion_tokens") ?? legacy;
}

function decodeMessages(raw: unknown[]): { system: TextBlock[]; messages: Message[] } {
  const system: TextBlock[] = [];
  const messages: Message[] = [];
  // OpenAI sends one `tool` message per result; the IR wants them in one user turn.
  let toolTurn: Message | undefined;
  raw.forEach((entry, i) => {
    const path = `messages[${i}]`;
    const m = expectObject(entry, path);
    if (m.role !== "tool") toolTurn = undefined;
    switch (m.role) {
      case "system":
      case "developer":
        system.push(...decodeTextContent(m.content, `${path}.content`));
        break;
      case "user":
        messages.push({ role: "user", content: decodeUserContent(m.content, `${path}.content`) });
        break;
      case "assistant":
        messages.push({ role: "assistant", content: decodeAssistantMessage(m, path) });
        break;
      case "tool": {
        const result = decodeToolMessage(m, path);
        if (toolTurn) toolTurn.content.push(result);
        else messages.push((toolTurn = { role: "user", content: [result] }));
        break;
      }
      default:
        invalid(`${path}.role`, '"system", "developer", "user", "assistant" or "tool"', m.role);
    }
  });
  return { system, messages };
}

/** System, developer and tool messages: a string or an array of text parts. */
function decodeTextContent(content: unknown, path: string): TextBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return invalid(path, "string or array of text parts", content);
  return content.map((part, i) => {
    const p = expectObject(part, `${path}[${i}]`);
    if (p.type !== "text") invalid(`${path}[${i}].type`, '"text"', p.type);
    return { type: "text", text: expectString(p.text, `${path}[${i}].text`) };
  });
}

function decodeUserContent(content: unknown, path: string): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return invalid(path, "string or array of content parts", content);
  return content.map((part, i): ContentBlock => {
    const partPath = `${path}[${i}]`;
    const p = expectObject(part, partPath);
    if (p.type === "text") return { type: "text", text: expectString(p.text, `${partPath}.text`) };
    if (p.type === "image_url") {
      const image = expectObject(p.image_url, `${partPath}.image_url`);
      return { type: "image", source: imageSource(expectString(image.url, `${partPath}.image_url.url`)) };
    }
    // Audio, files and future part types have no IR block; keep them for OpenAI vendors.
    expectString(p.type, `${partPath}.type`);
    return { type: "opaque", format: "openai", value: p };
  });
}

const DATA_URL = /^data:([^;,]+)(?:;[^;,]*)*;base64,(.*)$/s;

function imageSource(url: string): ImageSource {
  const m = DATA_URL.exec(url);
  return m ? { kind: "base64", mediaType: m[1], data: m[2] } : { kind: "url", url };
}

function decodeToolMessage(m: Json, path: string): ToolResultBlock {
  return {
    type: "tool_result",
    toolUseId: expectString(m.tool_call_id, `${path}.tool_call_id`),
    content: decodeTextContent(m.content, `${path}.content`),
  };
}

function decodeStop(stop: unknown): string[] | undefined {
  if (stop == null) return undefined;
  if (typeof stop === "string") return [stop];
  return expectArray(stop, "stop").map((s, i) => expectString(s, `stop[${i}]`));
}

function decodeTool(tool: unknown, path: string): ToolDefinition {
  const t = expectObject(tool, path);
  if (t.type !== "function") invalid(`${path}.type`, '"function"', t.type);
  const fn = expectObject(t.function, `${path}.function`);
  return definedOnly<ToolDefinition>({
    name: expectString(fn.name, `${path}.function.name`),
    description: optionalString(fn.description, `${path}.function.description`),
    // OpenAI allows omitting `parameters` for a tool that takes none.
    parameters: fn.parameters == null ? {} : expectObject(fn.parameters, `${path}.function.parameters`),
    strict: optionalBoolean(fn.strict, `${path}.function.strict`),
  });
}

function decodeToolChoice(choice: unknown): ToolChoice | undefined {
  if (choice == null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  const expected = '"auto", "none", "required" or {type:"function",function:{name}}';
  if (!isObject(choice)) return invalid("tool_choice", expected, choice);
  if (choice.type !== "function") invalid("tool_choice.type", '"function"', choice.type);
  const fn = expectObject(choice.function, "tool_choice.function");
  return { type: "tool", name: expectString(fn.name, "tool_choice.function.name") };
}

function decodeResponseFormat(format: unknown): ResponseFormat | undefined {
  if (format == null) return undefined;
  const f = expectObject(format, "response_format");
  switch (f.type) {
    case "text":
      return { type: "text" };
    case "json_object":
      return { type: "json" };
    case "json_schema": {
      const js = expectObject(f.json_schema, "response_format.json_schema");
      return definedOnly<ResponseFormat>({
        type: "json_schema",
        name: optionalString(js.name, "response_format.json_schema.name"),
        schema: js.schema == null ? {} : expectObject(js.schema, "response_format.json_schema.schema"),
        strict: optionalBoolean(js.strict, "response_format.json_schema.strict"),
      });
    }
    default:
      return invalid("response_format.type", '"text", "json_object" or "json_schema"', f.type);
  }
}

/**
 * "none" turns reasoning off; efforts the IR cannot name (newer vendor values)
 * stay in `extra` so a same-format vendor still receives them.
 */
function decodeReasoningEffort(effort: unknown): { reasoning?: ReasoningConfig; unmappedEffort?: string } {
  const value = optionalString(effort, "reasoning_effort");
  if (value === undefined) return {};
  if (value === "none") return { reasoning: { disabled: true } };
  if (EFFORTS.has(value)) return { reasoning: { effort: value as ReasoningConfig["effort"] } };
  return { unmappedEffort: value };
}
