// IR ChatRequest → body for OpenAI and OpenAI-compatible chat-completions vendors.
import type {
  ChatRequest,
  ContentBlock,
  ImageBlock,
  Message,
  ReasoningConfig,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
} from "../../ir.ts";
import type { EncodedRequest, EncodeRequestOptions } from "../types.ts";
import { reasoningEffort } from "../shared/effort.ts";
import { definedOnly } from "../shared/guards.ts";
import { stringifyClient } from "../../client-json.ts";
import type { Json } from "./shape.ts";

export function encodeRequest(req: ChatRequest, opts: EncodeRequestOptions): EncodedRequest {
  const dropped: string[] = [];
  // `extra` first: IR fields win over any same-named leftover.
  const body: Json = { ...req.extra, model: opts.model, messages: encodeMessages(req, dropped) };
  if (req.maxTokens !== undefined) body.max_completion_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) dropped.push("top_k");
  if (req.stop !== undefined) body.stop = req.stop;
  if (req.tools !== undefined) body.tools = req.tools.map(encodeTool);
  if (req.toolChoice !== undefined) body.tool_choice = encodeToolChoice(req.toolChoice);
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  if (req.responseFormat !== undefined) body.response_format = encodeResponseFormat(req.responseFormat);
  const effort = reasoningEffort(req.reasoning);
  if (effort !== undefined) body.reasoning_effort = effort;
  if (req.user !== undefined) body.user = req.user;
  if (req.stream) {
    body.stream = true;
    // Always ask for usage: the gateway meters every stream; whether the client
    // sees the usage chunk is the stream encoder's decision (`includeUsage`).
    body.stream_options = { include_usage: true };
  }
  return { body, dropped };
}

function encodeMessages(req: ChatRequest, dropped: string[]): Json[] {
  const out: Json[] = (req.system ?? []).map((b) => ({ role: "system", content: b.text }));
  req.messages.forEach((m, i) => out.push(...encodeMessage(m, `messages[${i}]`, dropped)));
  return out;
}

function encodeMessage(m: Message, path: string, dropped: string[]): Json[] {
  if (m.verbatim) {
    if (m.verbatim.format === "openai") return [m.verbatim.value as Json];
    dropped.push(`${path} (an entry of an unknown role)`);
    return [];
  }
  if (m.role === "system") return encodeSystemTurn(m.content, path, dropped);
  return m.role === "user" ? encodeUserTurn(m.content, path, dropped) : [encodeAssistantTurn(m.content, path, dropped)];
}

/** A mid-conversation instruction stays a system message in place: every chat-completions vendor takes one there. */
function encodeSystemTurn(content: ContentBlock[], path: string, dropped: string[]): Json[] {
  const parts: Json[] = [];
  content.forEach((b, j) => {
    if (b.type === "text") parts.push(textPart(b));
    else dropped.push(`${path}.content[${j}] (${b.type} in a system message)`);
  });
  return parts.length ? [{ role: "system", content: partsContent(parts, "") }] : [];
}

/** Tool results become `tool` messages, which must directly follow the assistant's tool calls. */
function encodeUserTurn(content: ContentBlock[], path: string, dropped: string[]): Json[] {
  const toolMessages: Json[] = [];
  const parts: Json[] = [];
  content.forEach((b, j) => {
    switch (b.type) {
      case "text":
        parts.push(textPart(b));
        break;
      case "image":
        parts.push(imagePart(b));
        break;
      case "tool_result": {
        const texts = b.content.filter((c): c is TextBlock => c.type === "text");
        toolMessages.push({ role: "tool", tool_call_id: b.toolUseId, content: partsContent(texts.map(textPart), "") });
        // Tool messages carry text only; images ride along in the user message so the model still sees them.
        for (const c of b.content) if (c.type === "image") parts.push(imagePart(c));
        break;
      }
      case "opaque":
        if (b.format === "openai") parts.push(b.value as Json);
        else dropped.push(`${path}.content[${j}] (${b.format} block)`);
        break;
      default:
        dropped.push(`${path}.content[${j}] (${b.type} in a user turn)`);
    }
  });
  if (parts.length === 0 && toolMessages.length > 0) return toolMessages;
  return [...toolMessages, { role: "user", content: partsContent(parts, "") }];
}

function encodeAssistantTurn(content: ContentBlock[], path: string, dropped: string[]): Json {
  const parts: Json[] = [];
  const toolCalls: Json[] = [];
  content.forEach((b, j) => {
    switch (b.type) {
      case "text":
        parts.push(textPart(b));
        break;
      case "tool_use":
        toolCalls.push({
          id: b.id,
          type: "function",
          function: { name: b.name, arguments: stringifyClient(b.input ?? {}, "messages") },
        });
        break;
      case "thinking":
      case "redacted_thinking":
        // Chat completions has no field for prior reasoning; vendors ignore it anyway.
        break;
      case "opaque":
        if (b.format === "openai") parts.push(b.value as Json);
        else dropped.push(`${path}.content[${j}] (${b.format} block)`);
        break;
      default:
        dropped.push(`${path}.content[${j}] (${b.type} in an assistant turn)`);
    }
  });
  const msg: Json = { role: "assistant", content: partsContent(parts, null) };
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  return msg;
}

const textPart = (b: TextBlock): Json => ({ type: "text", text: b.text });

function imagePart(b: ImageBlock): Json {
  const url = b.source.kind === "base64" ? `data:${b.source.mediaType};base64,${b.source.data}` : b.source.url;
  return { type: "image_url", image_url: { url } };
}

/** A lone text part is sent as a plain string, which every compatible vendor accepts. */
function partsContent<E extends string | null>(parts: Json[], empty: E): string | Json[] | E {
  if (parts.length === 0) return empty;
  if (parts.length === 1 && parts[0].type === "text") return parts[0].text as string;
  return parts;
}

function encodeTool(t: ToolDefinition): Json {
  return {
    type: "function",
    function: definedOnly({ name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }),
  };
}

function encodeToolChoice(c: ToolChoice): unknown {
  return c.type === "tool" ? { type: "function", function: { name: c.name } } : c.type;
}

function encodeResponseFormat(f: ResponseFormat): Json {
  switch (f.type) {
    case "text":
      return { type: "text" };
    case "json":
      return { type: "json_object" };
    case "json_schema":
      // OpenAI requires a schema name; other formats do not carry one.
      return {
        type: "json_schema",
        json_schema: definedOnly({ name: f.name ?? "response", schema: f.schema, strict: f.strict }),
      };
  }
}

