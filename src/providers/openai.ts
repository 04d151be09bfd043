import { definePlugin } from "../plugin/api.ts";
import { bearerHeaders } from "./openai-compatible.ts";

export default definePlugin({
  kind: "provider",
  name: "openai",
  displayName: "OpenAI",
  format: "openai",
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: ["OPENAI_API_KEY"],
  baseUrlEnv: ["OPENAI_BASE_URL"],
  request: (ctx) => ({ url: `${ctx.baseUrl}/chat/completions`, headers: bearerHeaders(ctx.apiKey) }),
});
