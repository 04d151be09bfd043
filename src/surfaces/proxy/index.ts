// The local proxy's model routes: /v1/messages, /v1/chat/completions,
// /v1/messages/count_tokens and /v1/models, plus health. The chat and
// model-list routes also answer any path containing `/chat/completions` or
// `/models` (spec §4.2 rule 1), so `/openai/v1/chat/completions` works.
import { Elysia } from "elysia";
import { VERSION } from "../../version.ts";
import type { Relay } from "../../relay.ts";
import { anthropicCodec } from "../../core/formats/anthropic/index.ts";
import { validateChatBody } from "../../core/router/admission.ts";
import { readClientCredential } from "../../core/router/client-credential.ts";
import { describeVendorFailure } from "../../core/limits/failure.ts";
import { VIA_HEADER } from "../../core/router/loop-guard.ts";
import { modelNotFound } from "../../core/router/plan.ts";
import { RequestScope } from "../../core/router/scope.ts";
import { UpstreamCall } from "../../core/router/upstream.ts";
import { clientInputError } from "../../core/router/validate.ts";
import { estimateTokensFor } from "../../core/tokens.ts";
import { providerBaseUrl, providerKey } from "../../core/router/credentials.ts";
import { readBody } from "../body.ts";
import { CoreError } from "../../core/errors.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { errorResponse, json } from "../http.ts";
import { chat } from "./chat.ts";
import { requestInfo } from "../app.ts";
import * as docs from "../openapi/proxy.ts";

export function healthBody(relay: Relay) {
  return {
    status: "ok",
    version: VERSION,
    uptime: Math.floor((Date.now() - relay.startedAt) / 1000),
    routing: relay.control.routingEnabled ? "enabled" : "disabled",
    store: relay.store.driver,
    plugins: { loaded: relay.plugins.loaded.length, failed: relay.plugins.failed.length },
  };
}

async function countTokens(relay: Relay, request: Request): Promise<Response> {
  const ri = requestInfo(request);
  try {
    if (relay.loop.looped(request.headers)) throw relay.loop.refuse(request.url, "anthropic", relay.registry.providers.values(), relay.config(), relay.env);
    const rawBody = await readBody(request, relay.config().server.bodyLimitBytes);
    const body = parseJsonObject(rawBody);
    validateChatBody(body);
    const model = relay.catalog.resolve(body.model as string);
    if (!model) throw modelNotFound(relay, body.model as string);
    // The model's own provider counts when it speaks this body's format, with the client's credential if meant for it.
    const provider = relay.registry.providers.get(model.provider);
    const style = provider?.clientCredential?.format === "anthropic" ? provider.clientCredential : undefined;
    const key = (style && readClientCredential(style, request.headers)) ?? (provider && providerKey(provider, relay.config(), relay.env));
    if (provider?.countTokens && provider.format === "anthropic" && key) {
      // The vendor's own count is exact; pass the body through untouched.
      const ctx = { model: model.id, stream: false, baseUrl: providerBaseUrl(provider, relay.config(), relay.env), apiKey: key, clientHeaders: request.headers };
      const { url, headers } = provider.countTokens(ctx);
      headers[VIA_HEADER] = relay.loop.outgoing(request.headers);
      const scope = new RequestScope(request.signal);
      const upstream = new UpstreamCall(scope.attempt(), relay.config().server.upstreamTimeoutMs);
      try {
        const res = await upstream.send({ url, headers, body: rawBody }).catch((e) => Promise.reject(upstream.failed(e)));
        const text = await res.text();
        return new Response(text, { status: res.status, headers: { "content-type": "application/json", "x-svc-token-count": "vendor" } });
      } finally {
        upstream.done();
        scope.close();
      }
    }
    const ir = anthropicCodec.decodeRequest(body);
    return json({ input_tokens: estimateTokensFor(ir, model.provider) }, 200, { "x-svc-token-count": "estimate" });
  } catch (e) {
    const err = clientInputError(e);
    if (err) return errorResponse(err, ri.id, "anthropic");
    return errorResponse(new CoreError(502, "provider_error", `Provider error: ${describeVendorFailure("anthropic", e)}`), ri.id, "anthropic");
  }
}

function listModels(relay: Relay, request: Request): Response {
  const created = Math.floor(relay.startedAt / 1000);
  const virtual = relay.registry.virtualModelNames();
  const models = relay.catalog.routableModels();
  // The Anthropic SDK lists models with its own headers and shape: those /v1/messages serves.
  if (request.headers.has("anthropic-version")) {
    const data = [
      ...virtual.map((v) => ({ id: v.model, type: "model", display_name: `${v.model} (${v.strategy} routing)`, created_at: new Date(relay.startedAt).toISOString() })),
      ...models.filter((m) => relay.registry.providers.get(m.provider)?.format === "anthropic").map((m) => ({ id: m.id, type: "model", display_name: m.id, created_at: new Date(relay.startedAt).toISOString() })),
    ];
    return json({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  }
  return json({
    object: "list",
    data: [
      ...virtual.map((v) => ({ id: v.model, object: "model", created, owned_by: "relay", strategy: v.strategy, description: v.description })),
      ...models.map((m) => ({
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

export function proxySurface(relay: Relay) {
  const health = () => json(healthBody(relay));
  return new Elysia({ name: "proxy" })
    .get("/health", health, { detail: docs.health })
    .get("/healthz", health, { detail: docs.health })
    .get("/status", health, { detail: docs.health })
    .post("/v1/messages", ({ request }) => chat(relay, request, "anthropic"), { parse: "none", detail: docs.messages })
    .post("/v1/messages/count_tokens", ({ request }) => countTokens(relay, request), { parse: "none", detail: docs.countTokens })
    .post("/v1/chat/completions", ({ request }) => chat(relay, request, "openai"), { parse: "none", detail: docs.chatCompletions })
    .get("/v1/models", ({ request }) => listModels(relay, request), { detail: docs.models });
}

/** The two model routes, answered before the router (see SurfaceOptions.fastPath). */
export function proxyFastPath(relay: Relay) {
  return (request: Request, path: string): Promise<Response> | undefined => {
    if (request.method !== "POST") return undefined;
    if (path === "/v1/chat/completions") return chat(relay, request, "openai");
    if (path === "/v1/messages") return chat(relay, request, "anthropic");
    return undefined;
  };
}

/** Substring routes of spec §4.2 rule 1, tried only when no exact route matched. */
export function proxyFallback(relay: Relay) {
  return (request: Request, path: string): Promise<Response> | Response | undefined => {
    if (request.method === "POST" && path.includes("/chat/completions")) return chat(relay, request, "openai");
    if (request.method === "GET" && path.includes("/models")) return listModels(relay, request);
    return undefined;
  };
}
