// GET /v1/models (and any path containing `/models`, spec §4.2 rule 1): the virtual models, then every
// model the catalog knows (the price data's and models.dev's, as a vendor's own list has them all) that
// a request could be served by — those whose provider has credentials, Relay's own or the one this
// request carries (§5.3, ProviderPlugin.clientCredential). `?all=true` adds the rest.
import type { ModelInfo, WireFormat } from "../../plugin/api.ts";
import type { Relay } from "../../relay.ts";
import { readClientCredential } from "../../core/router/client-credential.ts";
import { providerReady } from "../../core/router/credentials.ts";
import { json } from "../http.ts";

const ALL = new Set(["true", "1"]);

/** The provider whose credential this request carries, when the request is in that provider's client format. */
function clientCredentialFor(relay: Relay, format: WireFormat, headers: Headers): string | undefined {
  const owner = relay.registry.clientCredentialOwner(format);
  return owner && readClientCredential(owner.clientCredential!, headers) !== undefined ? owner.name : undefined;
}

/** The models to list: every one with `all`, else those whose provider could be called for this request. */
function offered(relay: Relay, format: WireFormat, request: Request): readonly ModelInfo[] {
  const known = relay.catalog.list();
  if (ALL.has(new URL(request.url).searchParams.get("all") ?? "")) return known;
  const config = relay.config();
  const clientFor = clientCredentialFor(relay, format, request.headers);
  const ready = new Set<string>();
  for (const p of relay.registry.providers.values()) if (providerReady(p, config, relay.env, clientFor)) ready.add(p.name);
  return known.filter((m) => ready.has(m.provider));
}

export function listModels(relay: Relay, request: Request): Response {
  const virtual = relay.registry.virtualModelNames();
  // The Anthropic SDK lists models with its own headers and shape: those /v1/messages serves.
  if (request.headers.has("anthropic-version")) {
    const createdAt = new Date(relay.startedAt).toISOString();
    const native = offered(relay, "anthropic", request).filter((m) => relay.registry.providers.get(m.provider)?.format === "anthropic");
    const data = [
      ...virtual.map((v) => ({ id: v.model, type: "model", display_name: `${v.model} (${v.strategy} routing)`, created_at: createdAt })),
      ...native.map((m) => ({ id: m.id, type: "model", display_name: m.id, created_at: createdAt })),
    ];
    return json({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  }
  const created = Math.floor(relay.startedAt / 1000);
  return json({
    object: "list",
    data: [
      ...virtual.map((v) => ({ id: v.model, object: "model", created, owned_by: "relay", strategy: v.strategy, description: v.description })),
      ...offered(relay, "openai", request).map((m) => ({
        id: m.id,
        object: "model",
        created,
        owned_by: m.provider,
        aliases: m.aliases,
        context_window: m.contextWindow,
        max_output_tokens: m.maxOutput,
        pricing: m.price,
        capabilities: m.capabilities,
        tier: m.tier,
      })),
    ],
  });
}
