// Gemini usageMetadata <-> IR Usage. Gemini's promptTokenCount INCLUDES the
// cached tokens and its candidatesTokenCount EXCLUDES the thoughts, while the
// IR counts input without cache reads and output with reasoning.
import type { Usage } from "../../ir.ts";
import { promptTokens } from "../../ir.ts";
import { isRecord, optNumber, type JsonObject } from "../shared/guards.ts";

export function decodeUsage(meta: unknown): Usage {
  const m = isRecord(meta) ? meta : {};
  const prompt = optNumber(m.promptTokenCount) ?? 0;
  const cached = optNumber(m.cachedContentTokenCount) ?? 0;
  const thoughts = optNumber(m.thoughtsTokenCount);
  return {
    // Tool-use prompt tokens (e.g. search results fed back) are billed as input.
    inputTokens: Math.max(0, prompt - cached) + (optNumber(m.toolUsePromptTokenCount) ?? 0),
    outputTokens: (optNumber(m.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    ...(thoughts !== undefined && { reasoningTokens: thoughts }),
  };
}

/** Whether a chunk's usageMetadata carries counts (Vertex streams send `{trafficType}` alone mid-stream). */
export const hasCounts = (meta: unknown): boolean =>
  isRecord(meta) && (meta.promptTokenCount !== undefined || meta.candidatesTokenCount !== undefined);

export function encodeUsage(usage: Usage): JsonObject {
  const prompt = promptTokens(usage);
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts),
    totalTokenCount: prompt + usage.outputTokens,
    ...(usage.cacheReadTokens > 0 && { cachedContentTokenCount: usage.cacheReadTokens }),
    ...(usage.reasoningTokens !== undefined && { thoughtsTokenCount: usage.reasoningTokens }),
  };
}
