import { definePlugin } from "../plugin/api.ts";

export default definePlugin({
  kind: "provider",
  name: "google",
  displayName: "Google Gemini",
  format: "gemini",
  baseUrl: "https://generativelanguage.googleapis.com",
  apiKeyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  baseUrlEnv: ["GEMINI_BASE_URL", "GOOGLE_BASE_URL"],
  // The key travels in a header, never the URL, so it cannot leak into access logs.
  request: (ctx) => ({
    url: `${ctx.baseUrl}/v1beta/models/${encodeURIComponent(ctx.model)}:${ctx.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    headers: { "content-type": "application/json", ...(ctx.apiKey ? { "x-goog-api-key": ctx.apiKey } : {}) },
  }),
});
