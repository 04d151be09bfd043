// OpenAI-compatible vendors differ only in base URL, key variable and a few
// body quirks, so each preset is one declarative entry on the same plugin API.
import { definePlugin, type ProviderPlugin } from "../plugin/api.ts";

export function bearerHeaders(apiKey: string | undefined): Record<string, string> {
  const h: Record<string, string> = { "content-type": "application/json" };
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}

interface Preset {
  name: string;
  displayName: string;
  baseUrl: string;
  /** Most compatible vendors know only the older `max_tokens`. */
  legacyMaxTokens?: boolean;
  /** The vendor's own model naming, for vendors that serve only their own models (not aggregators). */
  modelPatterns?: Array<RegExp | string>;
  /** The vendor serves the same API at its host and under /v1 (DeepSeek): a base URL is used as given. */
  servesBothPaths?: boolean;
}

function preset(p: Preset): ProviderPlugin {
  const env = p.name.toUpperCase();
  return definePlugin({
    kind: "provider",
    name: p.name,
    displayName: p.displayName,
    format: "openai",
    baseUrl: p.baseUrl,
    apiKeyEnv: [`${env}_API_KEY`],
    baseUrlEnv: [`${env}_BASE_URL`],
    modelPatterns: p.modelPatterns,
    // Documented with /v1 (Perplexity at the host): either form works.
    versionPath: p.servesBothPaths ? undefined : "/v1",
    request: (ctx) => ({ url: `${ctx.baseUrl}/chat/completions`, headers: bearerHeaders(ctx.apiKey) }),
    adaptBody: p.legacyMaxTokens ? renameMaxCompletionTokens : undefined,
  });
}

function renameMaxCompletionTokens(body: Record<string, unknown>): Record<string, unknown> {
  if (body.max_completion_tokens === undefined || body.max_tokens !== undefined) return body;
  const { max_completion_tokens, ...rest } = body;
  return { ...rest, max_tokens: max_completion_tokens };
}

export const xai = preset({ name: "xai", displayName: "xAI", baseUrl: "https://api.x.ai/v1", modelPatterns: ["grok-*"] });
export const groq = preset({ name: "groq", displayName: "Groq", baseUrl: "https://api.groq.com/openai/v1" });
export const mistral = preset({
  name: "mistral",
  displayName: "Mistral",
  baseUrl: "https://api.mistral.ai/v1",
  legacyMaxTokens: true,
  // Mistral's families (mistral-large-latest, codestral-latest, magistral-medium-latest, open-mistral-nemo, …).
  modelPatterns: [/^(?:mistral|codestral|devstral|magistral|ministral|pixtral|voxtral)-/, /^open-(?:mistral|mixtral|codestral)-/],
});
export const deepseek = preset({ name: "deepseek", displayName: "DeepSeek", baseUrl: "https://api.deepseek.com", legacyMaxTokens: true, servesBothPaths: true, modelPatterns: ["deepseek-*"] });
export const openrouter = preset({ name: "openrouter", displayName: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", legacyMaxTokens: true });
export const together = preset({ name: "together", displayName: "Together AI", baseUrl: "https://api.together.xyz/v1", legacyMaxTokens: true });
export const fireworks = preset({ name: "fireworks", displayName: "Fireworks AI", baseUrl: "https://api.fireworks.ai/inference/v1", legacyMaxTokens: true });
export const perplexity = preset({ name: "perplexity", displayName: "Perplexity", baseUrl: "https://api.perplexity.ai", legacyMaxTokens: true, modelPatterns: ["sonar", "sonar-*"] });

export const presets: ProviderPlugin[] = [xai, groq, mistral, deepseek, openrouter, together, fireworks, perplexity];
