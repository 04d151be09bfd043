// Anthropic messages request → IR.
//
// Mapping decisions that are not one-to-one:
// - Server tools (any `tools[]` entry whose `type` is set and not "custom",
//   e.g. web_search_20250305) have no IR shape. They are kept verbatim, in
//   order, as an array in `extra.tools`; the encoder appends them after the
//   custom tools. Across formats the router reports `tools` as dropped.
// - `thinking` types other than enabled/disabled (adaptive, between_tools, …)
//   are kept verbatim in `extra.thinking`. Adaptive thinking also sets
//   `reasoning.effort` (from `output_config.effort`, default "high") so that
//   other vendors still think; the same-format encoder lets extra win.
// - `output_config.format` / the beta `output_format` (json_schema) become
//   `responseFormat`; the rest of `output_config` (e.g. `effort`, which bounds
//   all output, not only thinking) stays verbatim in `extra.output_config`.
import type {
  ChatRequest,
  Message,
  ReasoningConfig,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
} from "../../ir.ts";
import { definedOnly, unmappedMembers } from "../shared/guards.ts";
import { optTokenLimit } from "../shared/token-limit.ts";
import { CodecError } from "../types.ts";
import { decodeCacheControl, decodeContent, decodeTextBlock } from "./blocks.ts";
import {
  type Json,
  array,
  isRecord,
  oneOf,
  optBoolean,
  optNumber,
  optString,
  record,
  string,
} from "./read.ts";

/** Top-level keys this decoder maps to IR fields; every other key goes to `extra`. */
const MAPPED_KEYS = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "stream",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "output_format",
  "metadata",
]);

function decodeSystem(v: unknown): TextBlock[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return [{ type: "text", text: v }];
  if (!Array.isArray(v)) throw new CodecError("system must be a string or an array of text blocks", "system", "string | array");
  return v.map((raw, i) => {
    const b = record(raw, `system[${i}]`);
    oneOf(b.type, ["text"], `system[${i}].type`);
    return decodeTextBlock(b, `system[${i}]`);
  });
}

function decodeMessages(v: unknown): Message[] {
  return array(v, "messages").map((raw, i) => {
    const m = record(raw, `messages[${i}]`);
    return {
      role: oneOf(m.role, ["user", "assistant"], `messages[${i}].role`),
      content: decodeContent(m.content, `messages[${i}].content`),
    };
  });
}

const isCustomTool = (t: Json): boolean => t.type === undefined || t.type === null || t.type === "custom";

function decodeTool(t: Json, path: string): ToolDefinition {
  const description = optString(t.description, `${path}.description`);
  const strict = optBoolean(t.strict, `${path}.strict`);
  const cacheControl = decodeCacheControl(t.cache_control, `${path}.cache_control`);
  return {
    name: string(t.name, `${path}.name`),
    parameters: record(t.input_schema, `${path}.input_schema`),
    ...(description === undefined ? {} : { description }),
    ...(strict === undefined ? {} : { strict }),
    ...(cacheControl ? { cacheControl } : {}),
  };
}

function decodeTools(v: unknown): { tools?: ToolDefinition[]; serverTools?: Json[] } {
  if (v === undefined || v === null) return {};
  const tools: ToolDefinition[] = [];
  const serverTools: Json[] = [];
  array(v, "tools").forEach((raw, i) => {
    const t = record(raw, `tools[${i}]`);
    if (isCustomTool(t)) tools.push(decodeTool(t, `tools[${i}]`));
    else serverTools.push(t);
  });
  return {
    ...(tools.length ? { tools } : {}),
    ...(serverTools.length ? { serverTools } : {}),
  };
}

function decodeToolChoice(v: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (v === undefined || v === null) return {};
  const c = record(v, "tool_choice");
  const type = oneOf(c.type, ["auto", "any", "none", "tool"], "tool_choice.type");
  const toolChoice: ToolChoice =
    type === "any"
      ? { type: "required" }
      : type === "tool"
        ? { type: "tool", name: string(c.name, "tool_choice.name") }
        : { type };
  const disable = optBoolean(c.disable_parallel_tool_use, "tool_choice.disable_parallel_tool_use");
  return { toolChoice, ...(disable === undefined ? {} : { parallelToolCalls: !disable }) };
}

const IR_EFFORTS = ["low", "medium", "high"] as const;

/** Anthropic's effort scale goes above "high" (xhigh, max); the IR's stops there. */
function adaptiveEffort(outputConfig: unknown): ReasoningConfig["effort"] {
  const effort = isRecord(outputConfig) ? outputConfig.effort : undefined;
  if (typeof effort !== "string") return "high";
  return (IR_EFFORTS as readonly string[]).includes(effort) ? (effort as "low" | "medium" | "high") : "high";
}

function decodeThinking(v: unknown, outputConfig: unknown): { reasoning?: ReasoningConfig; verbatim?: Json } {
  if (v === undefined || v === null) return {};
  const t = record(v, "thinking");
  const type = string(t.type, "thinking.type");
  if (type === "enabled") {
    const budget = optTokenLimit(t.budget_tokens, "thinking.budget_tokens");
    if (budget === undefined) throw new CodecError("thinking.budget_tokens is required when thinking is enabled", "thinking.budget_tokens", "number");
    return { reasoning: { budgetTokens: budget } };
  }
  if (type === "disabled") return { reasoning: { disabled: true } };
  if (type === "adaptive") return { reasoning: { effort: adaptiveEffort(outputConfig) }, verbatim: t };
  return { verbatim: t };
}

function decodeJsonSchemaFormat(v: unknown, path: string): ResponseFormat {
  const f = record(v, path);
  oneOf(f.type, ["json_schema"], `${path}.type`);
  return { type: "json_schema", schema: record(f.schema, `${path}.schema`) };
}

function decodeOutput(outputConfig: unknown, outputFormat: unknown): { responseFormat?: ResponseFormat; rest?: Json } {
  let responseFormat: ResponseFormat | undefined;
  let rest: Json | undefined;
  if (outputConfig !== undefined && outputConfig !== null) {
    const { format, ...others } = record(outputConfig, "output_config");
    if (format !== undefined && format !== null) responseFormat = decodeJsonSchemaFormat(format, "output_config.format");
    if (Object.keys(others).length) rest = others;
  }
  if (outputFormat !== undefined && outputFormat !== null) {
    responseFormat = decodeJsonSchemaFormat(outputFormat, "output_format");
  }
  return { ...(responseFormat ? { responseFormat } : {}), ...(rest ? { rest } : {}) };
}

function decodeStop(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return array(v, "stop_sequences").map((s, i) => string(s, `stop_sequences[${i}]`));
}

function decodeUser(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return optString(record(v, "metadata").user_id, "metadata.user_id");
}

export function decodeRequest(body: unknown): ChatRequest {
  const b = record(body, "body");
  const { tools, serverTools } = decodeTools(b.tools);
  const thinking = decodeThinking(b.thinking, b.output_config);
  const output = decodeOutput(b.output_config, b.output_format);

  let extra = unmappedMembers(b, MAPPED_KEYS);
  if (serverTools) (extra ??= {}).tools = serverTools;
  if (thinking.verbatim) (extra ??= {}).thinking = thinking.verbatim;
  if (output.rest) (extra ??= {}).output_config = output.rest;

  const fields: Omit<ChatRequest, "model" | "messages" | "stream"> = {
    system: decodeSystem(b.system),
    maxTokens: optTokenLimit(b.max_tokens, "max_tokens"),
    temperature: optNumber(b.temperature, "temperature"),
    topP: optNumber(b.top_p, "top_p"),
    topK: optNumber(b.top_k, "top_k"),
    stop: decodeStop(b.stop_sequences),
    tools,
    ...decodeToolChoice(b.tool_choice),
    responseFormat: output.responseFormat,
    reasoning: thinking.reasoning,
    user: decodeUser(b.metadata),
    extra,
  };
  return {
    model: string(b.model, "model"),
    messages: decodeMessages(b.messages),
    stream: optBoolean(b.stream, "stream") ?? false,
    // Absent parameters stay absent rather than present-but-undefined.
    ...definedOnly(fields),
  };
}
