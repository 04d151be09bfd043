// Anthropic messages request → IR.
//
// The decoder is never stricter than Anthropic: what it cannot map it keeps
// verbatim (same-format vendors receive the client's own bytes anyway), and it
// refuses only shapes no vendor could read (a non-array `messages`, a role that
// is not a string, …). Mapping decisions that are not one-to-one:
// - `role: "system"` entries in `messages` (mid-conversation system messages)
//   become IR messages of role "system" in place; an entry of a role the IR
//   does not know is kept whole (`Message.verbatim`).
// - Server tools (any `tools[]` entry whose `type` is set and not "custom",
//   e.g. web_search_20250305) have no IR shape. They are kept verbatim, in
//   order, as an array in `extra.tools`; the encoder appends them after the
//   custom tools. Across formats the router reports `tools` as dropped.
// - Adaptive thinking is `reasoning.adaptive`, its effort `output_config.effort`
//   (Anthropic's default "high" when absent). Efforts above the IR's scale
//   (xhigh, max) read as "high" and stay verbatim in `extra.output_config`, as
//   does `effort` without adaptive thinking (it then bounds all output, not
//   only thinking). Other thinking types (between_tools, …) and adaptive
//   thinking with further settings (display) are kept in `extra.thinking`.
// - `output_config.format` / the beta `output_format` (json_schema) become
//   `responseFormat`; other formats and the rest of `output_config` stay verbatim.
// - `tool_choice` of an unknown type and `metadata` beyond `user_id` stay verbatim.
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

const MAPPED_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system"]);

function decodeMessages(v: unknown): Message[] {
  return array(v, "messages").map((raw, i) => {
    const m = record(raw, `messages[${i}]`);
    const role = string(m.role, `messages[${i}].role`);
    if (!MAPPED_ROLES.has(role)) return { role: "user", content: [], verbatim: { type: "opaque", format: "anthropic", value: m } };
    return { role: role as Message["role"], content: decodeContent(m.content, `messages[${i}].content`) };
  });
}

const isCustomTool = (t: Json): boolean => t.type === undefined || t.type === null || t.type === "custom";

function decodeTool(t: Json, path: string): ToolDefinition {
  const description = optString(t.description, `${path}.description`);
  const strict = optBoolean(t.strict, `${path}.strict`);
  const cacheControl = decodeCacheControl(t.cache_control);
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

const TOOL_CHOICES: ReadonlySet<string> = new Set(["auto", "any", "none", "tool"]);

/** A tool_choice of a type the IR does not know is kept verbatim (`unknown`). */
function decodeToolChoice(v: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean; unknown?: Json } {
  if (v === undefined || v === null) return {};
  const c = record(v, "tool_choice");
  const type = string(c.type, "tool_choice.type");
  if (!TOOL_CHOICES.has(type)) return { unknown: c };
  const toolChoice: ToolChoice =
    type === "any"
      ? { type: "required" }
      : type === "tool"
        ? { type: "tool", name: string(c.name, "tool_choice.name") }
        : { type: type as "auto" | "none" };
  const disable = optBoolean(c.disable_parallel_tool_use, "tool_choice.disable_parallel_tool_use");
  return { toolChoice, ...(disable === undefined ? {} : { parallelToolCalls: !disable }) };
}

const IR_EFFORTS: ReadonlySet<string> = new Set(["low", "medium", "high"]);

function decodeThinking(v: unknown): { reasoning?: ReasoningConfig; verbatim?: Json } {
  if (v === undefined || v === null) return {};
  const t = record(v, "thinking");
  const type = string(t.type, "thinking.type");
  if (type === "enabled") {
    const budget = optTokenLimit(t.budget_tokens, "thinking.budget_tokens");
    if (budget === undefined) throw new CodecError("thinking.budget_tokens is required when thinking is enabled", "thinking.budget_tokens", "number");
    return { reasoning: { budgetTokens: budget } };
  }
  if (type === "disabled") return { reasoning: { disabled: true } };
  if (type === "adaptive") return { reasoning: { adaptive: true }, ...(onlyKey(t, "type") ? {} : { verbatim: t }) };
  return { verbatim: t };
}

function onlyKey(o: Json, name: string): boolean {
  for (const key in o) if (key !== name) return false;
  return true;
}

/** A json_schema format, or undefined for a format the IR does not know (kept verbatim by the caller). */
function decodeJsonSchemaFormat(v: unknown, path: string): ResponseFormat | undefined {
  const f = record(v, path);
  if (f.type !== "json_schema") return undefined;
  return { type: "json_schema", schema: record(f.schema, `${path}.schema`) };
}

interface Output {
  responseFormat?: ResponseFormat;
  /** output_config.effort as the IR's effort, when thinking is adaptive. */
  effort?: ReasoningConfig["effort"];
  /** What of output_config stays verbatim. */
  rest?: Json;
}

function decodeOutputConfig(v: unknown, adaptive: boolean): Output {
  if (v === undefined || v === null) return {};
  const { format, effort, ...rest } = record(v, "output_config");
  const out: Output = {};
  if (format !== undefined && format !== null) {
    out.responseFormat = decodeJsonSchemaFormat(format, "output_config.format");
    if (!out.responseFormat) rest.format = format;
  }
  if (effort !== undefined && effort !== null) {
    if (adaptive && typeof effort === "string") out.effort = IR_EFFORTS.has(effort) ? (effort as "low" | "medium" | "high") : "high";
    if (out.effort !== effort) rest.effort = effort;
  }
  if (Object.keys(rest).length) out.rest = rest;
  return out;
}

/** The beta top-level `output_format`: a json_schema response format, or kept verbatim. */
function decodeBetaFormat(v: unknown): { responseFormat?: ResponseFormat; verbatim?: unknown } {
  if (v === undefined || v === null) return {};
  const responseFormat = decodeJsonSchemaFormat(v, "output_format");
  return responseFormat ? { responseFormat } : { verbatim: v };
}

/** Everything decodeRequest keeps verbatim beyond the unmapped top-level members. */
function verbatimExtra(b: Json, parts: { serverTools?: Json[]; thinking?: Json; output: Output; outputFormat?: unknown; toolChoice?: Json }): Json | undefined {
  let extra = unmappedMembers(b, MAPPED_KEYS);
  if (parts.serverTools) (extra ??= {}).tools = parts.serverTools;
  if (parts.thinking) (extra ??= {}).thinking = parts.thinking;
  if (parts.output.rest) (extra ??= {}).output_config = parts.output.rest;
  if (parts.outputFormat !== undefined) (extra ??= {}).output_format = parts.outputFormat;
  if (parts.toolChoice) (extra ??= {}).tool_choice = parts.toolChoice;
  if (isRecord(b.metadata) && !onlyKey(b.metadata, "user_id")) (extra ??= {}).metadata = b.metadata;
  return extra;
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
  const thinking = decodeThinking(b.thinking);
  const reasoning = thinking.reasoning;
  const output = decodeOutputConfig(b.output_config, reasoning?.adaptive === true);
  if (reasoning?.adaptive) reasoning.effort = output.effort ?? "high";
  const beta = decodeBetaFormat(b.output_format);
  const choice = decodeToolChoice(b.tool_choice);
  const extra = verbatimExtra(b, { serverTools, thinking: thinking.verbatim, output, outputFormat: beta.verbatim, toolChoice: choice.unknown });

  const fields: Omit<ChatRequest, "model" | "messages" | "stream"> = {
    system: decodeSystem(b.system),
    maxTokens: optTokenLimit(b.max_tokens, "max_tokens"),
    temperature: optNumber(b.temperature, "temperature"),
    topP: optNumber(b.top_p, "top_p"),
    topK: optNumber(b.top_k, "top_k"),
    stop: decodeStop(b.stop_sequences),
    tools,
    toolChoice: choice.toolChoice,
    parallelToolCalls: choice.parallelToolCalls,
    responseFormat: beta.responseFormat ?? output.responseFormat,
    reasoning,
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
