// Responses `custom` tools take one free text rather than JSON arguments (Codex's apply_patch: a
// patch in a grammar). In the IR such a tool is a function whose one parameter, `input`, is that
// text, so every vendor can call it; its calls go back to a Responses client as `custom_tool_call`
// items, which is what the client's tool declared (Codex refuses a function call to it).
import type { ToolDefinition, ToolUseBlock } from "../../ir.ts";
import { definedOnly } from "../shared/guards.ts";
import { expectObject, expectString, optionalString, type Json } from "../openai/shape.ts";

export function decodeCustomTool(tool: Json, path: string): ToolDefinition {
  const format = tool.format == null ? undefined : expectObject(tool.format, `${path}.format`);
  const grammar = typeof format?.definition === "string" ? `, in this ${String(format.syntax ?? "")} grammar:\n${format.definition}` : "";
  return definedOnly<ToolDefinition>({
    name: expectString(tool.name, `${path}.name`),
    description: optionalString(tool.description, `${path}.description`),
    parameters: {
      type: "object",
      properties: { input: { type: "string", description: `The whole input as plain text${grammar}` } },
      required: ["input"],
    },
    custom: definedOnly({ format }),
  });
}

export function encodeCustomTool(t: ToolDefinition): Json {
  return definedOnly({ type: "custom", name: t.name, description: t.description, format: t.custom?.format });
}

/** Whether `name` is one of the request's custom tools (a loop: this runs per tool call). */
export function isCustomTool(tools: readonly ToolDefinition[] | undefined, name: string): boolean {
  if (tools === undefined) return false;
  for (const t of tools) if (t.name === name && t.custom !== undefined) return true;
  return false;
}

/** A custom call's text from the IR input (`{input}`); a vendor that sent other arguments gets them as JSON. */
export function customInput(input: unknown): string {
  const text = (input as Json | undefined)?.input;
  return typeof text === "string" ? text : JSON.stringify(input ?? {});
}

export function customCallItem(id: string | undefined, b: Pick<ToolUseBlock, "id" | "name">, input: string, status = "completed"): Json {
  const item: Json = id === undefined ? { type: "custom_tool_call" } : { id, type: "custom_tool_call", status };
  item.call_id = b.id;
  item.name = b.name;
  item.input = input;
  return item;
}

/** A `custom_tool_call` item a client sends back: the IR call with its text as `input`. */
export function decodeCustomCall(item: Json, path: string): ToolUseBlock {
  return {
    type: "tool_use",
    id: expectString(item.call_id, `${path}.call_id`),
    name: expectString(item.name, `${path}.name`),
    input: { input: expectString(item.input, `${path}.input`) },
  };
}
