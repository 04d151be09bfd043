// Loads the labelled routing dataset. Rows marked `agentContext: "claude-code"` get
// the shared Claude-Code-like system prompt and 40 tool definitions merged in, so
// the JSONL stays readable instead of repeating ~20 kB of context per row.

import { readFileSync } from "node:fs";
import path from "node:path";
import type { ChatRequest, TextBlock, ToolDefinition, Tier } from "../../src/index.ts";

export interface LabelledPrompt {
  id: string;
  category: string;
  tier: Tier;
  request: ChatRequest;
}

interface RawRow extends LabelledPrompt {
  agentContext?: "claude-code";
}

interface AgentContext {
  system: string;
  tools: ToolDefinition[];
}

const TIERS = new Set<Tier>(["simple", "moderate", "complex"]);

export function loadDataset(dir: string = import.meta.dir): LabelledPrompt[] {
  const agent = JSON.parse(readFileSync(path.join(dir, "agent-context.json"), "utf8")) as AgentContext;
  const agentSystem: TextBlock[] = [{ type: "text", text: agent.system }];
  const lines = readFileSync(path.join(dir, "prompts.jsonl"), "utf8").split("\n").filter((l) => l.trim());
  return lines.map((line, i) => {
    const { agentContext, ...row } = JSON.parse(line) as RawRow;
    if (!TIERS.has(row.tier) || !Array.isArray(row.request?.messages))
      throw new Error(`prompts.jsonl line ${i + 1} (${row.id}): needs a tier and request.messages`);
    if (agentContext === "claude-code") row.request = { ...row.request, system: agentSystem, tools: agent.tools };
    return row;
  });
}
