// /api/chat request body <-> IR ChatRequest. Ollama streams unless told
// otherwise, so decoding treats an absent `stream` as true and encoding
// always writes it.
import type { ChatRequest, ContentBlock, ImageBlock, Message, ReasoningConfig, ResponseFormat, TextBlock, ToolDefinition } from "../../ir.ts";
import { CodecError, type EncodedRequest, type EncodeRequestOptions } from "../types.ts";
import { CallIds, ToolNames } from "../shared/call-ids.ts";
import {
  isEmpty,
  isRecord,
  optNumber,
  optString,
  records,
  requireArray,
  requireRecord,
  unmappedMembers,
  type JsonObject,
} from "../shared/guards.ts";
import { inlineDataUrl, parseDataUrl } from "../shared/images.ts";
import { assistantBlocks, assistantMessage } from "./message.ts";

const TOP_LEVEL = new Set(["model", "messages", "tools", "format", "options", "stream", "think"]);
const OPTIONS = new Set(["temperature", "top_p", "top_k", "num_predict", "stop"]);

export function decodeRequest(body: unknown): ChatRequest {
  const req = requireRecord(body, "body");
  const model = optString(req.model);
  if (!model) throw new CodecError("model is required", "model", "string");
  const ids = new CallIds();
  const system: TextBlock[] = [];
  const messages: Message[] = [];
  requireArray(req.messages, "messages").forEach((raw, i) => {
    const m = requireRecord(raw, `messages[${i}]`);
    const text = optString(m.content) ?? "";
    switch (m.role) {
      case "system":
        if (text) system.push({ type: "text", text });
        break;
      case "user":
        appendUser(messages, [...(text ? [{ type: "text", text } as const] : []), ...decodeImages(m.images)]);
        break;
      case "assistant":
        messages.push({ role: "assistant", content: assistantBlocks(m, ids) });
        break;
      case "tool": {
        const call = ids.result(optString(m.tool_name) ?? "", optString(m.tool_call_id));
        const content = [...(text ? [{ type: "text", text } as const] : []), ...decodeImages(m.images)];
        appendUser(messages, [{ type: "tool_result", toolUseId: call.id, ...(call.name && { name: call.name }), content }]);
        break;
      }
      default:
        throw new CodecError(`unknown role ${String(m.role)}`, `messages[${i}].role`, "system | user | assistant | tool");
    }
  });

  const options = isRecord(req.options) ? req.options : {};
  let extra = unmappedMembers(req, TOP_LEVEL);
  const optionsRest = unmappedMembers(options, OPTIONS);
  if (optionsRest) (extra ??= {}).options = optionsRest;
  const stop = typeof options.stop === "string" ? [options.stop] : Array.isArray(options.stop) ? options.stop.filter((s) => typeof s === "string") : [];
  const tools = decodeTools(req.tools);
  const responseFormat = decodeFormat(req.format);
  const reasoning = decodeThink(req.think);
  const numbers: Partial<Record<"temperature" | "topP" | "topK" | "maxTokens", number>> = {};
  for (const [key, wire] of [["temperature", "temperature"], ["topP", "top_p"], ["topK", "top_k"], ["maxTokens", "num_predict"]] as const) {
    const value = optNumber(options[wire]);
    if (value !== undefined) numbers[key] = value;
  }
  return {
    model,
    stream: req.stream !== false,
    messages,
    ...(system.length > 0 && { system }),
    ...numbers,
    ...(stop.length > 0 && { stop }),
    ...(tools.length > 0 && { tools }),
    ...(responseFormat && { responseFormat }),
    ...(reasoning && { reasoning }),
    ...(extra && { extra }),
  };
}

/** Consecutive tool results (and the user turn right after them) share one IR user message, as Anthropic requires. */
function appendUser(messages: Message[], blocks: ContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === "user" && last.content.at(-1)?.type === "tool_result") last.content.push(...blocks);
  else messages.push({ role: "user", content: blocks });
}

function decodeImages(images: unknown): ImageBlock[] {
  if (!Array.isArray(images)) return [];
  return images
    .filter((i): i is string => typeof i === "string")
    .map((raw) => {
      const inline = parseDataUrl(raw);
      const data = inline?.data ?? raw;
      return { type: "image", source: { kind: "base64", mediaType: inline?.mediaType ?? sniffImageType(data), data } };
    });
}

/** Ollama images are bare base64; the IR wants a media type, read from the magic bytes. */
export function sniffImageType(base64: string): string {
  if (base64.startsWith("iVBORw0KGgo")) return "image/png";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  if (base64.startsWith("UklGR")) return "image/webp";
  return "image/jpeg";
}

function decodeTools(tools: unknown): ToolDefinition[] {
  return records(tools).map((tool) => {
    const fn = isRecord(tool.function) ? tool.function : {};
    const description = optString(fn.description);
    return {
      name: optString(fn.name) ?? "",
      ...(description && { description }),
      parameters: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    };
  });
}

function decodeFormat(format: unknown): ResponseFormat | undefined {
  if (format === "json") return { type: "json" };
  if (isRecord(format)) return { type: "json_schema", schema: format };
  return undefined;
}

/** `think` is a boolean, or a level for models such as gpt-oss. */
function decodeThink(think: unknown): ReasoningConfig | undefined {
  if (think === true) return {};
  if (think === false) return { disabled: true };
  if (think === "low" || think === "medium" || think === "high") return { effort: think };
  return undefined;
}

export function encodeRequest(req: ChatRequest, opts: EncodeRequestOptions): EncodedRequest {
  const { options: extraOptions, ...extraTop } = req.extra ?? {};
  const dropped: string[] = [];
  const messages: JsonObject[] = [];
  if (req.system && req.system.length > 0) {
    messages.push({ role: "system", content: req.system.map((b) => b.text).join("\n\n") });
  }
  const names = new ToolNames();
  req.messages.forEach((m, i) => {
    if (m.verbatim) {
      dropped.push(`messages[${i}] (an entry of an unknown role)`);
    } else if (m.role === "assistant") {
      for (const b of m.content) if (b.type === "tool_use") names.note(b);
      messages.push(assistantMessage(m.content));
    } else if (m.role === "system") {
      // Ollama takes system messages anywhere in the conversation.
      const texts: string[] = [];
      m.content.forEach((b, j) => {
        if (b.type === "text") texts.push(b.text);
        else dropped.push(`messages[${i}].content[${j}] (${b.type} in a system message)`);
      });
      if (texts.length > 0) messages.push({ role: "system", content: texts.join("\n\n") });
    } else {
      messages.push(...encodeUserMessage(m.content, names, `messages[${i}]`));
    }
  });

  const body: JsonObject = { ...extraTop, model: opts.model, messages, stream: req.stream };
  // Ollama has no tool_choice; "none" is honoured by not offering the tools.
  if (req.tools && req.tools.length > 0 && req.toolChoice?.type !== "none") {
    body.tools = req.tools.map((t) => ({
      type: "function",
      function: { name: t.name, ...(t.description && { description: t.description }), parameters: t.parameters },
    }));
  }
  if (req.toolChoice?.type === "required" || req.toolChoice?.type === "tool") dropped.push("tool_choice");
  if (req.parallelToolCalls === false) dropped.push("parallel_tool_calls");
  if (req.user !== undefined) dropped.push("user");

  if (req.responseFormat?.type === "json") body.format = "json";
  if (req.responseFormat?.type === "json_schema") body.format = req.responseFormat.schema;
  if (req.reasoning) body.think = encodeThink(req.reasoning);

  const options: JsonObject = { ...(isRecord(extraOptions) ? extraOptions : {}) };
  if (req.temperature !== undefined) options.temperature = req.temperature;
  if (req.topP !== undefined) options.top_p = req.topP;
  if (req.topK !== undefined) options.top_k = req.topK;
  if (req.maxTokens !== undefined) options.num_predict = req.maxTokens;
  if (req.stop && req.stop.length > 0) options.stop = req.stop;
  if (!isEmpty(options)) body.options = options;
  return { body, dropped };
}

/** Tool results become `tool` messages ahead of the user's own text and images. */
function encodeUserMessage(blocks: ContentBlock[], names: ToolNames, path: string): JsonObject[] {
  const out: JsonObject[] = [];
  const texts: string[] = [];
  const images: string[] = [];
  blocks.forEach((b, j) => {
    if (b.type === "text") texts.push(b.text);
    else if (b.type === "image") images.push(base64Of(b, `${path}.content[${j}]`));
    else if (b.type === "tool_result") {
      const name = names.of(b);
      const resultImages = b.content.flatMap((c, k) =>
        c.type === "image" ? [base64Of(c, `${path}.content[${j}].content[${k}]`)] : [],
      );
      out.push({
        role: "tool",
        content: b.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n"),
        ...(resultImages.length > 0 && { images: resultImages }),
        ...(name && { tool_name: name }),
      });
    }
  });
  if (texts.length > 0 || images.length > 0) {
    out.push({ role: "user", content: texts.join("\n"), ...(images.length > 0 && { images }) });
  }
  return out;
}

function base64Of(block: ImageBlock, path: string): string {
  const source = inlineDataUrl(block.source);
  if (source.kind !== "base64") throw new CodecError("Ollama accepts only base64 images", path, "base64 image");
  return source.data;
}

function encodeThink(reasoning: ReasoningConfig): boolean | string {
  if (reasoning.disabled) return false;
  if (reasoning.effort === "minimal") return "low";
  return reasoning.effort ?? true;
}
