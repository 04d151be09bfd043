// Example provider plugin: a self-hosted OpenAI-compatible server (vLLM,
// LM Studio, llama.cpp's llama-server). Relay's OpenAI codec does the
// translation; the plugin only says where the server is and what it serves.
import { definePlugin, type ModelInfo, type ProviderRequestContext } from "relay/plugin";

// Self-hosted models have no bill, but a zero price lets cost-based strategies prefer them.
const FREE = { input: 0, output: 0 };

function localModel(id: string, contextWindow: number, tools: boolean): ModelInfo {
  return {
    id,
    provider: "local-openai",
    aliases: [],
    contextWindow,
    price: FREE,
    capabilities: { tools, vision: false, json: true, reasoning: false, streaming: true },
    tier: "simple",
    // Routable: strategies such as svc:cheapest may pick them.
    routable: true,
  };
}

export default definePlugin({
  kind: "provider",
  name: "local-openai",
  displayName: "Local OpenAI-compatible server",
  format: "openai",
  // LM Studio's default; vLLM listens on :8000/v1.
  baseUrl: "http://127.0.0.1:1234/v1",
  baseUrlEnv: ["LOCAL_OPENAI_BASE_URL"],
  // No apiKeyEnv: most local servers need no key, and declaring one would mark the provider unavailable without it.
  request(ctx: ProviderRequestContext) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    // vLLM started with --api-key checks a bearer token; pass one if configured (providers.local-openai.apiKey).
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    return { url: `${ctx.baseUrl}/chat/completions`, headers };
  },
  // Older vLLM releases and llama-server know only `max_tokens`.
  adaptBody(body: Record<string, unknown>) {
    if (body.max_completion_tokens === undefined || body.max_tokens !== undefined) return body;
    const { max_completion_tokens, ...rest } = body;
    return { ...rest, max_tokens: max_completion_tokens };
  },
  models: [localModel("qwen2.5-7b-instruct", 32_768, true), localModel("llama-3.1-8b-instruct", 131_072, true)],
  // Any other model the server loads: `local-openai:<name>` always reaches it; bare names matching
  // these (and not listed in Relay's catalog) do too, e.g. `qwen3-coder-30b`.
  modelPatterns: ["qwen*", /^llama-.*-local$/],
});
