import { definePlugin, type ProviderRequestContext } from "../plugin/api.ts";

const DEFAULT_VERSION = "2023-06-01";
// OAuth access tokens (Claude subscriptions) are Bearer tokens that need this beta flag.
const OAUTH_PREFIX = "sk-ant-oat";
const OAUTH_BETA = "oauth-2025-04-20";

function headers(ctx: ProviderRequestContext): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": "application/json",
    "anthropic-version": ctx.clientHeaders.get("anthropic-version") ?? DEFAULT_VERSION,
  };
  const betas = (ctx.clientHeaders.get("anthropic-beta") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (ctx.apiKey?.startsWith(OAUTH_PREFIX)) {
    h.authorization = `Bearer ${ctx.apiKey}`;
    if (!betas.includes(OAUTH_BETA)) betas.push(OAUTH_BETA);
  } else if (ctx.apiKey) {
    h["x-api-key"] = ctx.apiKey;
  }
  if (betas.length) h["anthropic-beta"] = betas.join(",");
  return h;
}

export default definePlugin({
  kind: "provider",
  name: "anthropic",
  displayName: "Anthropic",
  format: "anthropic",
  baseUrl: "https://api.anthropic.com",
  apiKeyEnv: ["ANTHROPIC_API_KEY"],
  baseUrlEnv: ["ANTHROPIC_BASE_URL"],
  // Claude model ids all start so (claude-opus-4-5, claude-3-5-haiku-latest): one newer than the catalog still routes here.
  modelPatterns: ["claude-*"],
  versionPath: "/v1",
  // Claude Code and the Anthropic SDKs send their own key (or subscription token) on /v1/messages.
  clientCredential: { format: "anthropic", headers: ["x-api-key", "authorization"], oauthPrefix: OAUTH_PREFIX },
  request: (ctx) => ({ url: `${ctx.baseUrl}/v1/messages`, headers: headers(ctx) }),
  countTokens: (ctx) => ({ url: `${ctx.baseUrl}/v1/messages/count_tokens`, headers: headers(ctx) }),
});
