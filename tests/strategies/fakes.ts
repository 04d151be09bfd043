// Test doubles for strategy plugins: a small in-memory catalog and a StrategyContext around it.

import { HealthBoard } from "../../src/core/limits/health.ts";
import type { CatalogView, ChatRequest, ModelInfo, RouteInput, StrategyContext } from "../../src/plugin/api.ts";

type ModelSpec = Partial<Omit<ModelInfo, "capabilities">> & {
  id: string;
  provider: string;
  capabilities?: Partial<ModelInfo["capabilities"]>;
};

export function model(spec: ModelSpec): ModelInfo {
  return {
    aliases: [],
    routable: true,
    ...spec,
    capabilities: { tools: true, vision: true, json: true, reasoning: false, streaming: true, ...spec.capabilities },
  };
}

export function fakeCatalog(models: ModelInfo[]): CatalogView {
  const routable = Object.freeze(models.filter((m) => m.routable));
  return {
    resolve(name) {
      const [vendor, id] = name.includes(":") ? name.split(":", 2) : [undefined, name];
      return models.find((m) => (m.id === id || m.aliases.includes(id)) && (vendor === undefined || m.provider === vendor));
    },
    list: () => models,
    routableModels: () => routable,
  };
}

/** `down`: providers cooling down, as a health source reports them. */
export function fakeContext(models: ModelInfo[], options: Record<string, unknown> = {}, down: string[] = []): StrategyContext {
  const health = new HealthBoard([{ providerFacts: (name) => (down.includes(name) ? { coolingDown: true, recentFailures: 3 } : undefined) }]);
  return {
    options,
    catalog: fakeCatalog(models),
    isAvailable: (m) => !health.model(m).coolingDown,
    health,
    estimateTokens: () => 0,
  };
}

export function chat(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "svc:auto", stream: false, messages: [{ role: "user", content: [{ type: "text", text }] }], ...extra };
}

export function routeInput(requestedModel: string, request: ChatRequest): RouteInput {
  return { request, requestedModel, clientFormat: "openai", headers: new Headers() };
}

/** Anthropic, OpenAI and Google models with tier hints and prices (USD per million tokens). */
export const CATALOG: ModelInfo[] = [
  model({ id: "claude-haiku-4-5", provider: "anthropic", tier: "simple", price: { input: 1, output: 5 } }),
  model({ id: "claude-sonnet-4-5", provider: "anthropic", tier: "moderate", price: { input: 3, output: 15 } }),
  model({ id: "claude-opus-4-5", provider: "anthropic", tier: "complex", price: { input: 5, output: 25 } }),
  model({ id: "gpt-5-nano", provider: "openai", tier: "simple", price: { input: 0.05, output: 0.4 } }),
  model({ id: "gpt-5-mini", provider: "openai", tier: "moderate", price: { input: 0.25, output: 2 } }),
  model({ id: "gpt-5", provider: "openai", tier: "complex", price: { input: 1.25, output: 10 } }),
  model({ id: "gemma-tiny", provider: "ollama", tier: "simple", capabilities: { tools: false, vision: false, json: false } }),
  model({ id: "text-only-cheap", provider: "acme", tier: "simple", price: { input: 0.01, output: 0.02 }, capabilities: { tools: false, vision: false } }),
  model({ id: "internal-embedder", provider: "acme", routable: false, price: { input: 0, output: 0 } }),
];
