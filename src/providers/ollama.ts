import { definePlugin } from "../plugin/api.ts";

export default definePlugin({
  kind: "provider",
  name: "ollama",
  displayName: "Ollama",
  format: "ollama",
  baseUrl: "http://localhost:11434",
  baseUrlEnv: ["OLLAMA_HOST"],
  versionPath: "/api",
  request: (ctx) => ({ url: `${ctx.baseUrl}/api/chat`, headers: { "content-type": "application/json" } }),
});
