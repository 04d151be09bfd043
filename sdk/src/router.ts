// Local mode's routers: the portable router (src/portable.ts) set up with the providers of the run,
// of configure() and of the environment (§5.11), in that order of precedence. One router is kept per
// distinct set of providers, so that the price catalog it builds on first use is built once.
import openai from "../../src/providers/openai.ts";
import { createRouter, type RelayPlugin, type Router, type RunRecord } from "../../src/portable.ts";
import type { Env, ProviderConfig } from "./config.ts";

/** The environment's key variables by vendor, first set wins (Google takes GEMINI_API_KEY too). */
const KEY_ENV: Record<string, string[]> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  google: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
  xai: ["XAI_API_KEY"],
};
/** Names a step's model may use for a Relay provider of another name. */
const VENDOR_ALIASES: Record<string, string> = { gemini: "google" };

type Settings = { apiKey?: string; baseUrl?: string; organization?: string };

/** Each vendor's settings: the environment's, then `configured`, then the run's, later ones winning whole. */
export function effectiveProviders(env: Env, ...layers: Array<Record<string, ProviderConfig> | undefined>): Record<string, Settings> {
  const out: Record<string, Settings> = {};
  for (const [vendor, names] of Object.entries(KEY_ENV)) {
    const key = names.map((n) => env[n]).find(Boolean);
    if (key) out[vendor] = { apiKey: key };
  }
  // Ollama needs no key; OLLAMA_HOST is often host:port, without a scheme.
  if (env.OLLAMA_HOST) out.ollama = { baseUrl: /^https?:\/\//i.test(env.OLLAMA_HOST) ? env.OLLAMA_HOST : `http://${env.OLLAMA_HOST}` };
  for (const layer of layers) for (const [vendor, p] of Object.entries(layer ?? {})) out[VENDOR_ALIASES[vendor] ?? vendor] = { ...p };
  return out;
}

const routers = new Map<string, Router>();

/** The router for `providers` (made on first use); `onRecord` gets each vendor call's record. */
export function routerFor(providers: Record<string, Settings>, onRecord: (record: RunRecord) => void): Router {
  const key = JSON.stringify(Object.entries(providers).sort(([a], [b]) => a.localeCompare(b)));
  let router = routers.get(key);
  if (!router) {
    const config = Object.fromEntries(Object.entries(providers).map(([vendor, p]) => [vendor, { ...(p.apiKey && { apiKey: p.apiKey }), ...(p.baseUrl && { baseUrl: p.baseUrl }) }]));
    const organization = providers.openai?.organization;
    // Nothing from process.env: the router sees exactly the providers above.
    router = createRouter({ config: { providers: config }, env: {}, plugins: organization ? [withOrganization(organization)] : [], onRecord });
    routers.set(key, router);
  }
  return router;
}

/** Forgets the routers (after resetConfig); runs holding one finish on it. */
export function dropRouters(): void {
  routers.clear();
}

/** The built-in OpenAI provider, sending OpenAI-Organization on every call. */
function withOrganization(organization: string): RelayPlugin {
  return {
    ...openai,
    request: (ctx) => {
      const { url, headers } = openai.request(ctx);
      return { url, headers: { ...headers, "OpenAI-Organization": organization } };
    },
  };
}
