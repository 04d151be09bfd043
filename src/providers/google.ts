import { definePlugin } from "../plugin/api.ts";

export default definePlugin({
  kind: "provider",
  name: "google",
  displayName: "Google Gemini",
  format: "gemini",
  baseUrl: "https://generativelanguage.googleapis.com",
  apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  baseUrlEnv: ["GEMINI_BASE_URL", "GOOGLE_BASE_URL"],
  // Gemini models only: Gemma and others are open weights that many hosts serve.
  modelPatterns: ["gemini-*"],
  versionPath: "/v1beta",
  // Google Gen AI SDKs send their own key on Gemini's routes (a `?key=` is handed in as this header);
  // it is for Google alone, so a request without it still goes to other vendors.
  clientCredential: { format: "gemini", headers: ["x-goog-api-key"], optional: true },
  // The key travels in a header, never the URL, so it cannot leak into access logs.
  request: (ctx) => ({
    url: `${ctx.baseUrl}/v1beta/models/${encodeURIComponent(ctx.model)}:${ctx.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    headers: headers(ctx.apiKey),
  }),
  countTokens: (ctx) => ({ url: `${ctx.baseUrl}/v1beta/models/${encodeURIComponent(ctx.model)}:countTokens`, headers: headers(ctx.apiKey) }),
});

function headers(apiKey: string | undefined): Record<string, string> {
  return { "content-type": "application/json", ...(apiKey ? { "x-goog-api-key": apiKey } : {}) };
}
