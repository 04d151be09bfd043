// Responses request body (`POST /v1/responses`) → IR ChatRequest.
//
// Members of a mapped object that the IR has no field for (`text.verbosity`, `reasoning.summary`,
// hosted tools) are kept in `extra` under their dotted wire path (`tools` holds the hosted tools
// only), so a Responses vendor gets them back and another vendor's drop report names them.
import type { ChatRequest, ReasoningConfig, ResponseFormat, TextBlock, ToolChoice, ToolDefinition } from "../../ir.ts";
import { definedOnly, isEmpty, unmappedMembers } from "../shared/guards.ts";
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
} from "../openai/shape.ts";
import { decodeCustomTool } from "./custom-tools.ts";
import { decodeInput } from "./input-decode.ts";

/** Top-level keys with an IR field; every other key is kept in `extra`. */
const MAPPED_KEYS = new Set([
  "model",
  "input",
  "instructions",
  "max_output_tokens",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "stream",
  "user",
  "store",
  "previous_response_id",
]);

const EFFORTS = new Set(["minimal", "low", "medium", "high"]);

export function decodeRequest(body: unknown): ChatRequest {
  const b = expectObject(body, "body");
  const { system, messages } = b.input == null ? { system: [], messages: [] } : decodeInput(b.input);
  const instructions = optionalString(b.instructions, "instructions");
  const allSystem: TextBlock[] = instructions ? [{ type: "text", text: instructions }, ...system] : system;
  const extra = unmappedMembers(b, MAPPED_KEYS) ?? {};
  const tools = decodeTools(b.tools, extra);
  return definedOnly<ChatRequest>({
    model: expectString(b.model, "model"),
    system: allSystem.length > 0 ? allSystem : undefined,
    messages,
    stream: optionalBoolean(b.stream, "stream") ?? false,
    maxTokens: optTokenLimit(b.max_output_tokens, "max_output_tokens"),
    temperature: optionalNumber(b.temperature, "temperature"),
    topP: optionalNumber(b.top_p, "top_p"),
    tools,
    toolChoice: decodeToolChoice(b.tool_choice, extra),
    parallelToolCalls: optionalBoolean(b.parallel_tool_calls, "parallel_tool_calls"),
    responseFormat: decodeText(b.text, extra),
    reasoning: decodeReasoningConfig(b.reasoning, extra),
    user: optionalString(b.user, "user"),
    previousResponseId: optionalString(b.previous_response_id, "previous_response_id"),
    store: optionalBoolean(b.store, "store"),
    extra: isEmpty(extra) ? undefined : extra,
  });
}

/** Function and custom tools map to the IR; hosted tools (web search, file search, MCP…) stay in `extra.tools`. */
function decodeTools(raw: unknown, extra: Json): ToolDefinition[] | undefined {
  if (raw == null) return undefined;
  const tools: ToolDefinition[] = [];
  const hosted: unknown[] = [];
  expectArray(raw, "tools").forEach((t, i) => {
    const path = `tools[${i}]`;
    const tool = expectObject(t, path);
    if (tool.type === "custom") {
      tools.push(decodeCustomTool(tool, path));
      return;
    }
    if (tool.type !== "function") {
      expectString(tool.type, `${path}.type`);
      hosted.push(tool);
      return;
    }
    tools.push(
      definedOnly<ToolDefinition>({
        name: expectString(tool.name, `${path}.name`),
        description: optionalString(tool.description, `${path}.description`),
        parameters: tool.parameters == null ? {} : expectObject(tool.parameters, `${path}.parameters`),
        strict: optionalBoolean(tool.strict, `${path}.strict`),
      }),
    );
  });
  if (hosted.length > 0) extra.tools = hosted;
  return tools;
}

function decodeToolChoice(choice: unknown, extra: Json): ToolChoice | undefined {
  if (choice == null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  if (!isObject(choice)) return invalid("tool_choice", '"auto", "none", "required" or an object', choice);
  if (choice.type === "function" || choice.type === "custom") return { type: "tool", name: expectString(choice.name, "tool_choice.name") };
  // allowed_tools, hosted tool types and MCP: OpenAI's own.
  expectString(choice.type, "tool_choice.type");
  extra.tool_choice = choice;
  return undefined;
}

/** `text.format` is the response format; the rest of `text` (verbosity) is OpenAI's own. */
function decodeText(raw: unknown, extra: Json): ResponseFormat | undefined {
  if (raw == null) return undefined;
  const text = expectObject(raw, "text");
  for (const key in text) if (key !== "format") extra[`text.${key}`] = text[key];
  if (text.format == null) return undefined;
  const f = expectObject(text.format, "text.format");
  switch (f.type) {
    case "text":
      return { type: "text" };
    case "json_object":
      return { type: "json" };
    case "json_schema":
      if (f.description != null) extra["text.format.description"] = f.description;
      return definedOnly<ResponseFormat>({
        type: "json_schema",
        name: optionalString(f.name, "text.format.name"),
        schema: f.schema == null ? {} : expectObject(f.schema, "text.format.schema"),
        strict: optionalBoolean(f.strict, "text.format.strict"),
      });
    default:
      return invalid("text.format.type", '"text", "json_object" or "json_schema"', f.type);
  }
}

/** `reasoning.effort` maps; "none" turns reasoning off; newer efforts and `summary` stay in `extra`. */
function decodeReasoningConfig(raw: unknown, extra: Json): ReasoningConfig | undefined {
  if (raw == null) return undefined;
  const r = expectObject(raw, "reasoning");
  for (const key in r) if (key !== "effort" && r[key] != null) extra[`reasoning.${key}`] = r[key];
  const effort = optionalString(r.effort, "reasoning.effort");
  if (effort === undefined) return undefined;
  if (effort === "none") return { disabled: true };
  if (EFFORTS.has(effort)) return { effort: effort as ReasoningConfig["effort"] };
  extra["reasoning.effort"] = effort;
  return undefined;
}
