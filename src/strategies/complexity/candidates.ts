// Candidate selection shared by the built-in strategies: what a request needs from
// a model, and how catalog entries are named and filtered.

import type { CatalogView, ChatRequest, ModelCapabilities, ModelInfo, StrategyContext } from "../../plugin/api.ts";

export type Need = keyof Pick<ModelCapabilities, "tools" | "vision" | "json">;

/** Capabilities a model must have to serve `req` at all. */
export function requiredCapabilities(req: ChatRequest): Need[] {
  const needs: Need[] = [];
  if (req.tools?.length) needs.push("tools");
  const hasImage = req.messages.some((m) =>
    m.content.some((b) => b.type === "image" || (b.type === "tool_result" && b.content.some((p) => p.type === "image"))),
  );
  if (hasImage) needs.push("vision");
  const format = req.responseFormat?.type;
  if (format === "json" || format === "json_schema") needs.push("json");
  return needs;
}

export const covers = (model: ModelInfo, needs: Need[]): boolean => needs.every((n) => model.capabilities[n]);

/** The unambiguous name of a catalog entry, which the router resolves back to it. */
export const modelRef = (model: ModelInfo): string => `${model.provider}:${model.id}`;

/** Resolves configured names to usable models, dropping unknown, unavailable or incapable ones and duplicates. */
export function usableModels(
  names: readonly string[],
  needs: Need[],
  catalog: CatalogView,
  isAvailable: StrategyContext["isAvailable"],
): ModelInfo[] {
  const seen = new Set<string>();
  const out: ModelInfo[] = [];
  for (const name of names) {
    const model = catalog.resolve(name);
    if (!model || seen.has(modelRef(model))) continue;
    seen.add(modelRef(model));
    if (isAvailable(model) && covers(model, needs)) out.push(model);
  }
  return out;
}
