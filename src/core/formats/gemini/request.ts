// generateContent request body <-> IR ChatRequest. The model and the stream
// flag live in the URL (`models/<m>:streamGenerateContent`), not the body: a
// surface serving Gemini's routes hands them in as `model` and `stream`
// members of the body object it routes (never of the bytes sent on).
import type {
  ChatRequest,
  Message,
  ReasoningConfig,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
} from "../../ir.ts";
import { geminiSchemaToJsonSchema, sanitizeGeminiSchema } from "../gemini-schema.ts";
import type { EncodedRequest } from "../types.ts";
import { CallIds, ToolNames } from "../shared/call-ids.ts";
import {
  definedOnly,
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
import { decodeParts, encodeParts } from "./parts.ts";

const TOP_LEVEL = new Set(["model", "stream", "contents", "systemInstruction", "generationConfig", "tools", "toolConfig"]);
const GENERATION = new Set([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stopSequences",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "thinkingConfig",
]);
const TOOL_CONFIG = new Set(["functionCallingConfig"]);
const FUNCTION_DECLARATIONS = new Set(["functionDeclarations"]);
const EFFORT_BUDGET = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const;

export function decodeRequest(body: unknown): ChatRequest {
  const req = requireRecord(body, "body");
  const ids = new CallIds();
  const messages: Message[] = requireArray(req.contents, "contents").map((c, i) => {
    const content = requireRecord(c, `contents[${i}]`);
    return { role: content.role === "model" ? "assistant" : "user", content: decodeParts(content.parts, ids) };
  });
  const gen = isRecord(req.generationConfig) ? req.generationConfig : {};
  const tools = decodeTools(req.tools);
  const toolConfig = isRecord(req.toolConfig) ? req.toolConfig : {};
  let extra = unmappedMembers(req, TOP_LEVEL);
  const genRest = unmappedMembers(gen, GENERATION);
  if (genRest) (extra ??= {}).generationConfig = genRest;
  if (tools.others.length > 0) (extra ??= {}).tools = tools.others;
  const toolConfigRest = unmappedMembers(toolConfig, TOOL_CONFIG);
  if (toolConfigRest) (extra ??= {}).toolConfig = toolConfigRest;

  const system = decodeSystem(req.systemInstruction);
  const stop = Array.isArray(gen.stopSequences) ? gen.stopSequences.filter((s) => typeof s === "string") : undefined;
  const responseFormat = decodeResponseFormat(gen);
  const reasoning = decodeThinking(gen.thinkingConfig);
  const toolChoice = decodeToolChoice(toolConfig.functionCallingConfig);
  return {
    model: optString(req.model) ?? "",
    stream: req.stream === true,
    messages: messages.filter((m) => m.content.length > 0),
    ...(system.length > 0 && { system }),
    ...definedOnly({
      maxTokens: optNumber(gen.maxOutputTokens),
      temperature: optNumber(gen.temperature),
      topP: optNumber(gen.topP),
      topK: optNumber(gen.topK),
    }),
    ...(stop && stop.length > 0 && { stop }),
    ...(tools.functions.length > 0 && { tools: tools.functions }),
    ...(toolChoice && { toolChoice }),
    ...(responseFormat && { responseFormat }),
    ...(reasoning && { reasoning }),
    ...(extra && { extra }),
  };
}

function decodeSystem(instruction: unknown): TextBlock[] {
  if (typeof instruction === "string") return instruction ? [{ type: "text", text: instruction }] : [];
  if (!isRecord(instruction)) return [];
  return records(instruction.parts)
    .map((p) => optString(p.text))
    .filter((t): t is string => !!t)
    .map((text) => ({ type: "text", text }));
}

function decodeTools(tools: unknown): { functions: ToolDefinition[]; others: JsonObject[] } {
  const functions: ToolDefinition[] = [];
  const others: JsonObject[] = [];
  for (const tool of records(tools)) {
    for (const decl of records(tool.functionDeclarations)) {
      const description = optString(decl.description);
      functions.push({
        name: optString(decl.name) ?? "",
        ...(description && { description }),
        parameters: isRecord(decl.parametersJsonSchema)
          ? decl.parametersJsonSchema
          : isRecord(decl.parameters)
            ? geminiSchemaToJsonSchema(decl.parameters)
            : { type: "object", properties: {} },
      });
    }
    // googleSearch, codeExecution, urlContext...: no IR equivalent, forwarded as-is.
    const rest = unmappedMembers(tool, FUNCTION_DECLARATIONS);
    if (rest) others.push(rest);
  }
  return { functions, others };
}

function decodeToolChoice(config: unknown): ToolChoice | undefined {
  if (!isRecord(config)) return undefined;
  const allowed = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  switch (config.mode) {
    case "AUTO":
    case "VALIDATED":
      return { type: "auto" };
    case "NONE":
      return { type: "none" };
    case "ANY":
      return allowed.length === 1 && typeof allowed[0] === "string"
        ? { type: "tool", name: allowed[0] }
        : { type: "required" };
    default:
      return undefined;
  }
}

function decodeResponseFormat(gen: JsonObject): ResponseFormat | undefined {
  if (isRecord(gen.responseJsonSchema)) return { type: "json_schema", schema: gen.responseJsonSchema };
  if (isRecord(gen.responseSchema)) return { type: "json_schema", schema: geminiSchemaToJsonSchema(gen.responseSchema) };
  if (gen.responseMimeType === "application/json") return { type: "json" };
  if (gen.responseMimeType === "text/plain") return { type: "text" };
  return undefined;
}

function decodeThinking(config: unknown): ReasoningConfig | undefined {
  if (!isRecord(config)) return undefined;
  const budget = optNumber(config.thinkingBudget);
  const level = optString(config.thinkingLevel)?.toLowerCase();
  if (budget === 0) return { disabled: true };
  if (budget !== undefined && budget > 0) return { budgetTokens: budget };
  if (level === "minimal" || level === "low" || level === "medium" || level === "high") return { effort: level };
  return {}; // dynamic budget (-1) or only includeThoughts: thinking on, vendor's default amount
}

export function encodeRequest(req: ChatRequest): EncodedRequest {
  const { generationConfig: extraGen, tools: extraTools, toolConfig: extraToolConfig, ...extraTop } = req.extra ?? {};
  const dropped: string[] = [];
  const { system, contents } = encodeContents(req, dropped);
  const body: JsonObject = { ...extraTop, contents };
  if (system.length > 0) body.systemInstruction = { parts: system };

  const generationConfig = { ...(isRecord(extraGen) ? extraGen : {}), ...encodeGeneration(req) };
  if (!isEmpty(generationConfig)) body.generationConfig = generationConfig;

  const declarations = (req.tools ?? []).map(encodeTool);
  const tools = [...(declarations.length > 0 ? [{ functionDeclarations: declarations }] : []), ...records(extraTools)];
  if (tools.length > 0) body.tools = tools;

  const toolConfig = { ...(isRecord(extraToolConfig) ? extraToolConfig : {}) };
  if (req.toolChoice) toolConfig.functionCallingConfig = encodeToolChoice(req.toolChoice);
  if (!isEmpty(toolConfig)) body.toolConfig = toolConfig;

  if (req.parallelToolCalls === false) dropped.push("parallel_tool_calls");
  if (req.user !== undefined) dropped.push("user");
  return { body, dropped };
}

/** Introduces a mid-conversation system entry that Gemini can only receive as a user turn. */
const SYSTEM_NOTE = "System instruction:\n";

/**
 * Gemini takes instructions only in systemInstruction, ahead of the conversation: system entries
 * before any turn join it; a later one becomes a user turn in place, marked as an instruction.
 */
function encodeContents(req: ChatRequest, dropped: string[]): { system: JsonObject[]; contents: JsonObject[] } {
  const system: JsonObject[] = (req.system ?? []).map((b) => ({ text: b.text }));
  const contents: JsonObject[] = [];
  const names = new ToolNames();
  req.messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    if (m.verbatim) {
      dropped.push(`${path} (an entry of an unknown role)`);
    } else if (m.role === "system") {
      const texts = systemTexts(m, path, dropped);
      if (contents.length === 0) system.push(...texts.map((text) => ({ text })));
      else if (texts.length > 0) contents.push({ role: "user", parts: [{ text: SYSTEM_NOTE + texts.join("\n\n") }] });
    } else {
      const parts = encodeParts(m.content, names, path);
      // Gemini rejects a content without parts.
      if (parts.length > 0) contents.push({ role: m.role === "assistant" ? "model" : "user", parts });
    }
  });
  return { system, contents };
}

function systemTexts(m: Message, path: string, dropped: string[]): string[] {
  const texts: string[] = [];
  m.content.forEach((b, j) => {
    if (b.type === "text") texts.push(b.text);
    else dropped.push(`${path}.content[${j}] (${b.type} in a system message)`);
  });
  return texts;
}

function encodeGeneration(req: ChatRequest): JsonObject {
  const gen: JsonObject = definedOnly({
    maxOutputTokens: req.maxTokens,
    temperature: req.temperature,
    topP: req.topP,
    topK: req.topK,
  });
  if (req.stop && req.stop.length > 0) gen.stopSequences = req.stop;
  const format = req.responseFormat;
  if (format?.type === "text") gen.responseMimeType = "text/plain";
  if (format?.type === "json" || format?.type === "json_schema") gen.responseMimeType = "application/json";
  if (format?.type === "json_schema") gen.responseSchema = sanitizeGeminiSchema(format.schema);
  if (req.reasoning) gen.thinkingConfig = encodeThinking(req.reasoning);
  return gen;
}

function encodeThinking(reasoning: ReasoningConfig): JsonObject {
  if (reasoning.disabled) return { thinkingBudget: 0 };
  const budget = reasoning.budgetTokens ?? (reasoning.effort && EFFORT_BUDGET[reasoning.effort]);
  return { ...(budget !== undefined && { thinkingBudget: budget }), includeThoughts: true };
}

function encodeTool(tool: ToolDefinition): JsonObject {
  const parameters = sanitizeGeminiSchema(tool.parameters);
  return {
    name: tool.name,
    ...(tool.description && { description: tool.description }),
    // A no-argument function must omit parameters: Gemini rejects an OBJECT without properties.
    ...(isRecord(parameters.properties) && { parameters }),
  };
}

function encodeToolChoice(choice: ToolChoice): JsonObject {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}
