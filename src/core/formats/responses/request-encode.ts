// IR ChatRequest → a Responses request body.
import type { ChatRequest, ReasoningConfig, ResponseFormat, ToolChoice, ToolDefinition } from "../../ir.ts";
import { reasoningEffort } from "../shared/effort.ts";
import { definedOnly } from "../shared/guards.ts";
import type { EncodedRequest, EncodeRequestOptions } from "../types.ts";
import type { Json } from "../openai/shape.ts";
import { encodeCustomTool, isCustomTool } from "./custom-tools.ts";
import { encodeInput } from "./input-encode.ts";

export function encodeRequest(req: ChatRequest, opts: EncodeRequestOptions): EncodedRequest {
  const dropped: string[] = [];
  const { top, nested } = splitExtra(req.extra);
  // `extra` first: IR fields win over any same-named leftover.
  const body: Json = { ...top, model: opts.model, input: encodeInput(req.messages, dropped, req.tools) };
  if (req.system?.length) body.instructions = req.system.map((b) => b.text).join("\n\n");
  if (req.maxTokens !== undefined) body.max_output_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) dropped.push("top_k");
  if (req.stop !== undefined) dropped.push("stop");
  const hosted = Array.isArray(top.tools) ? top.tools : [];
  if (req.tools !== undefined || hosted.length > 0) body.tools = [...(req.tools ?? []).map(encodeTool), ...hosted];
  if (req.toolChoice !== undefined) body.tool_choice = encodeToolChoice(req.toolChoice, req.tools);
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  const text = merge(nested.text, req.responseFormat && { format: encodeFormat(req.responseFormat, nested["text.format"]) });
  if (text) body.text = text;
  const reasoning = merge(nested.reasoning, encodeReasoning(req.reasoning));
  if (reasoning) body.reasoning = reasoning;
  if (req.user !== undefined) body.user = req.user;
  if (req.previousResponseId !== undefined) body.previous_response_id = req.previousResponseId;
  if (req.store !== undefined) body.store = req.store;
  if (req.stream) body.stream = true;
  return { body, dropped };
}

/** `extra` keys are wire paths: `text.verbosity` goes back inside `text`. */
function splitExtra(extra: Record<string, unknown> | undefined): { top: Json; nested: Record<string, Json | undefined> } {
  const top: Json = {};
  const nested: Record<string, Json | undefined> = {};
  for (const key in extra) {
    const dot = key.indexOf(".");
    if (dot === -1) {
      top[key] = extra[key];
      continue;
    }
    const [head, rest] = key === "text.format.description" ? ["text.format", "description"] : [key.slice(0, dot), key.slice(dot + 1)];
    (nested[head] ??= {})[rest] = extra[key];
  }
  return { top, nested };
}

function merge(kept: Json | undefined, mapped: Json | undefined): Json | undefined {
  return kept || mapped ? { ...kept, ...mapped } : undefined;
}

/** Responses tools are flat: `{type:"function", name, description, parameters, strict}`, or a custom tool as it came. */
function encodeTool(t: ToolDefinition): Json {
  if (t.custom) return encodeCustomTool(t);
  return definedOnly({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: t.strict });
}

function encodeToolChoice(c: ToolChoice, tools: ToolDefinition[] | undefined): unknown {
  if (c.type !== "tool") return c.type;
  return { type: isCustomTool(tools, c.name) ? "custom" : "function", name: c.name };
}

function encodeFormat(f: ResponseFormat, kept: Json | undefined): Json {
  switch (f.type) {
    case "text":
      return { type: "text" };
    case "json":
      return { type: "json_object" };
    case "json_schema":
      // A name is required; other formats do not carry one.
      return definedOnly({ type: "json_schema", name: f.name ?? "response", description: kept?.description, schema: f.schema, strict: f.strict });
  }
}

/** The effort as for chat completions (shared/effort.ts). */
function encodeReasoning(r: ReasoningConfig | undefined): Json | undefined {
  const effort = reasoningEffort(r);
  return effort === undefined ? undefined : { effort };
}

