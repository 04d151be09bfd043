import { definePlugin } from "../plugin/api.ts";
import { bearerHeaders } from "./openai-compatible.ts";

export default definePlugin({
  kind: "provider",
  name: "openai",
  displayName: "OpenAI",
  format: "openai",
  alsoSpeaks: ["responses"],
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: ["OPENAI_API_KEY"],
  baseUrlEnv: ["OPENAI_BASE_URL"],
  // OpenAI's model families: gpt-5.5, o3 / o4-mini, chatgpt-4o-latest, codex-mini-latest.
  modelPatterns: ["gpt-*", /^o\d/, "chatgpt-*", "codex-*"],
  versionPath: "/v1",
  request: (ctx) => ({ url: `${ctx.baseUrl}${ctx.format === "responses" ? "/responses" : "/chat/completions"}`, headers: bearerHeaders(ctx.apiKey) }),
});
