// IR → Anthropic messages request.
import type { ChatRequest, ContentBlock, Message, ReasoningConfig, TextBlock, ToolChoice } from "../../ir.ts";
import type { EncodeRequestOptions, EncodedRequest } from "../types.ts";
import { encodeBlock, encodeCacheControl } from "./blocks.ts";
import { type Json, isRecord } from "./read.ts";

const DEFAULT_MAX_TOKENS = 4096;
/** Anthropic rejects smaller thinking budgets. */
const MIN_THINKING_BUDGET = 1024;
const BUDGET_BY_EFFORT = { low: 1024, medium: 4096, high: 16384 } as const;

/** Anthropic rejects unsigned thinking (other vendors' reasoning) and cannot read other formats' opaque blocks. */
function encodeContent(blocks: ContentBlock[]): Json[] {
  const out: Json[] = [];
  for (const b of blocks) {
    if (b.type === "thinking" && !b.signature) continue;
    const wire = encodeBlock(b);
    if (wire) out.push(wire);
  }
  return out;
}

/**
 * Anthropic requires alternating roles and, in a user turn, tool results
 * before anything else; IR from other formats satisfies neither (OpenAI sends
 * one tool message per result, Gemini may repeat roles). System entries stay
 * where they are, apart from the turns around them.
 */
function encodeMessages(messages: Message[]): Json[] {
  const turns: Json[] = [];
  let last: { role: Message["role"]; content: Json[] } | undefined;
  for (const m of messages) {
    if (m.verbatim) {
      if (m.verbatim.format === "anthropic") turns.push(m.verbatim.value as Json);
      last = undefined;
      continue;
    }
    const content = encodeContent(m.content);
    if (!content.length) continue;
    if (last?.role === m.role && m.role !== "system") last.content.push(...content);
    else turns.push((last = { role: m.role, content }));
  }
  for (const t of turns) {
    if (t.role !== "user" || !Array.isArray(t.content)) continue;
    const blocks = t.content as Json[];
    const results = blocks.filter((b) => b.type === "tool_result");
    if (results.length) t.content = [...results, ...blocks.filter((b) => b.type !== "tool_result")];
  }
  return turns;
}

function encodeSystem(system: TextBlock[] | undefined): string | Json[] | undefined {
  if (!system?.length) return undefined;
  const only = system.length === 1 ? system[0] : undefined;
  if (only && !only.cacheControl) return only.text;
  return system.map((b) => ({ type: "text", text: b.text, ...encodeCacheControl(b.cacheControl) }));
}

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined, hasTools: boolean): Json | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return hasTools && parallel === false ? { type: "auto", ...disable } : undefined;
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any", ...disable };
    case "tool":
      return { type: "tool", name: choice.name, ...disable };
    case "auto":
      return { type: "auto", ...disable };
  }
}

/** Anthropic takes a token budget, not an effort; `minimal` is the closest to off. */
function encodeThinking(r: ReasoningConfig | undefined): Json | undefined {
  if (!r) return undefined;
  if (r.disabled || (r.budgetTokens !== undefined && r.budgetTokens <= 0)) return { type: "disabled" };
  if (r.adaptive) return { type: "adaptive" };
  if (r.effort === "minimal") return { type: "disabled" };
  const budget = r.budgetTokens ?? (r.effort ? BUDGET_BY_EFFORT[r.effort] : undefined);
  if (budget === undefined) return undefined;
  return { type: "enabled", budget_tokens: Math.max(budget, MIN_THINKING_BUDGET) };
}

/** Adaptive thinking's guide; "high" is Anthropic's default and goes unsaid. */
function adaptiveEffort(r: ReasoningConfig | undefined): string | undefined {
  if (!r?.adaptive || !r.effort || r.effort === "high") return undefined;
  return r.effort === "minimal" ? "low" : r.effort;
}

/** Same-format parameters without an IR field; two keys merge with what the IR produced. */
function applyExtra(body: Json, extra: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(extra)) {
    if (key === "tools" && Array.isArray(value)) {
      body.tools = [...(Array.isArray(body.tools) ? body.tools : []), ...value];
    } else if (key === "output_config" && isRecord(value)) {
      body.output_config = { ...(isRecord(body.output_config) ? body.output_config : {}), ...value };
    } else {
      body[key] = value;
    }
  }
}

export function encodeRequest(req: ChatRequest, opts: EncodeRequestOptions): EncodedRequest {
  const dropped: string[] = [];
  const extra = req.extra ?? {};
  const body: Json = {
    model: opts.model,
    max_tokens: req.maxTokens ?? opts.defaultMaxTokens ?? DEFAULT_MAX_TOKENS,
    messages: encodeMessages(req.messages),
  };
  const system = encodeSystem(req.system);
  if (system !== undefined) body.system = system;

  // A verbatim Anthropic `thinking` (e.g. adaptive) in extra is authoritative.
  const thinking = "thinking" in extra ? undefined : encodeThinking(req.reasoning);
  if (thinking) body.thinking = thinking;
  const thinkingType = (thinking ?? (isRecord(extra.thinking) ? extra.thinking : undefined))?.type;
  const thinkingOn = thinkingType !== undefined && thinkingType !== "disabled";
  if (thinking?.type === "enabled") {
    const budget = thinking.budget_tokens as number;
    // max_tokens includes the thinking budget and must exceed it.
    if ((body.max_tokens as number) <= budget) body.max_tokens = budget + (body.max_tokens as number);
  }

  // Anthropic refuses sampling changes while thinking (top_p only down to 0.95).
  if (req.temperature !== undefined) {
    if (thinkingOn && req.temperature !== 1) dropped.push("temperature");
    else body.temperature = req.temperature;
  }
  if (req.topP !== undefined) {
    if (thinkingOn && req.topP < 0.95) dropped.push("top_p");
    else body.top_p = req.topP;
  }
  if (req.topK !== undefined) {
    if (thinkingOn) dropped.push("top_k");
    else body.top_k = req.topK;
  }
  if (req.stop?.length) body.stop_sequences = req.stop;
  body.stream = req.stream;

  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      input_schema: t.parameters,
      ...(t.strict === undefined ? {} : { strict: t.strict }),
      ...encodeCacheControl(t.cacheControl),
    }));
  }
  const hasTools = Boolean(req.tools?.length) || (Array.isArray(extra.tools) && extra.tools.length > 0);
  const toolChoice = encodeToolChoice(req.toolChoice, req.parallelToolCalls, hasTools);
  if (toolChoice) body.tool_choice = toolChoice;

  const outputConfig: Json = {};
  if (req.responseFormat?.type === "json_schema") {
    outputConfig.format = { type: "json_schema", schema: req.responseFormat.schema };
  } else if (req.responseFormat?.type === "json") {
    // Anthropic has no schemaless JSON mode.
    dropped.push("response_format");
  }
  const effort = thinkingType === "adaptive" ? adaptiveEffort(req.reasoning) : undefined;
  if (effort) outputConfig.effort = effort;
  if (outputConfig.format || effort) body.output_config = outputConfig;
  if (req.user !== undefined) body.metadata = { user_id: req.user };

  applyExtra(body, extra);
  return { body, dropped };
}
