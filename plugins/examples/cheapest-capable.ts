// Example strategy plugin: `svc:cheapest` sends each request to the cheapest
// model that can actually serve it. Copy it into a plugins folder
// ($RELAY_HOME/plugins or plugins/ beside the binary) to enable it.
import { definePlugin, type ChatRequest, type ModelInfo, type RoutePlan, type StrategyContext } from "relay/plugin";

/** Output tokens assumed when the client sets no limit, so prices compare on a realistic answer. */
const DEFAULT_OUTPUT_TOKENS = 1024;
/** Enough candidates to survive a provider outage without trying every model. */
const MAX_CANDIDATES = 3;

interface Needs {
  tools: boolean;
  vision: boolean;
  tokens: number;
}

function needsOf(req: ChatRequest, ctx: StrategyContext): Needs {
  const vision = req.messages.some((m) => m.content.some((b) => b.type === "image"));
  return { tools: (req.tools?.length ?? 0) > 0, vision, tokens: ctx.estimateTokens(req) + (req.maxTokens ?? DEFAULT_OUTPUT_TOKENS) };
}

function canServe(m: ModelInfo, needs: Needs): boolean {
  if (needs.tools && !m.capabilities.tools) return false;
  if (needs.vision && !m.capabilities.vision) return false;
  // Unknown context windows are given the benefit of the doubt.
  return m.contextWindow === undefined || m.contextWindow >= needs.tokens;
}

/** Expected USD for this request; models without a known price cannot be compared, so they are skipped. */
function expectedCost(m: ModelInfo, inputTokens: number, outputTokens: number): number | undefined {
  if (!m.price) return undefined;
  return (m.price.input * inputTokens + m.price.output * outputTokens) / 1e6;
}

export default definePlugin({
  kind: "strategy",
  name: "cheapest-capable",
  description: "Cheapest priced model with the needed capabilities and context window",
  models: ["svc:cheapest"],
  plan({ request }, ctx): RoutePlan {
    const needs = needsOf(request, ctx);
    const input = ctx.estimateTokens(request);
    const output = request.maxTokens ?? DEFAULT_OUTPUT_TOKENS;
    const ranked = ctx.catalog
      .routableModels() // one shared array: no copy of the whole catalog per request
      .filter((m) => ctx.isAvailable(m) && canServe(m, needs))
      .map((m) => ({ m, cost: expectedCost(m, input, output) }))
      .filter((r): r is { m: ModelInfo; cost: number } => r.cost !== undefined)
      .sort((a, b) => a.cost - b.cost)
      .slice(0, MAX_CANDIDATES);
    const wanted = [needs.tools && "tools", needs.vision && "vision"].filter(Boolean).join("+") || "text";
    return {
      // `provider:id` keeps the choice unambiguous when two vendors share a model id.
      candidates: ranked.map((r) => `${r.m.provider}:${r.m.id}`),
      mode: "fallback",
      reasons: ranked.length
        ? [`cheapest ${wanted} model for ~${needs.tokens} tokens: ${ranked[0]!.m.id} ($${ranked[0]!.cost.toFixed(6)})`]
        : [`no priced, available model offers ${wanted} with ${needs.tokens} tokens of context`],
    };
  },
});
