// The local proxy's model routes: /v1/messages, /v1/chat/completions,
// /v1/messages/count_tokens, Gemini's /v1beta/models/{model}:{method} and
// /v1/models, plus health. The chat and model-list routes also answer any path
// containing `/chat/completions` or `/models` (spec §4.2 rule 1), so
// `/openai/v1/chat/completions` works; Gemini's model methods are matched first.
import { Elysia } from "elysia";
import { VERSION } from "../../version.ts";
import type { Relay } from "../../relay.ts";
import { anthropicCodec } from "../../core/formats/anthropic/index.ts";
import { validateChatBody } from "../../core/router/admission.ts";
import { describeVendorFailure } from "../../core/limits/failure.ts";
import { modelNotFound } from "../../core/router/plan.ts";
import { clientInputError } from "../../core/router/validate.ts";
import { estimateTokensFor } from "../../core/tokens.ts";
import { readBody } from "../body.ts";
import { CoreError } from "../../core/errors.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { errorResponse, json } from "../http.ts";
import { chat } from "./chat.ts";
import { createResponse, deleteResponse, retrieveResponse } from "./responses.ts";
import { gemini } from "./gemini.ts";
import { geminiPath } from "../../core/formats/gemini/path.ts";
import { countKey, vendorCount } from "./vendor-count.ts";
import { listModels } from "./models.ts";
import { pathOf, requestInfo } from "../app.ts";
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
    const key = provider && countKey(relay, provider, "anthropic", request.headers);
    // The vendor's own count is exact; pass the body through untouched.
    if (provider?.countTokens && provider.format === "anthropic" && key) return await vendorCount(relay, request, provider, model.id, key, rawBody);
    const ir = anthropicCodec.decodeRequest(body);
    return json({ input_tokens: estimateTokensFor(ir, model.provider) }, 200, { "x-svc-token-count": "estimate" });
  } catch (e) {
    const err = clientInputError(e);
    if (err) return errorResponse(err, ri.id, "anthropic");
    return errorResponse(new CoreError(502, "provider_error", `Provider error: ${describeVendorFailure("anthropic", e)}`), ri.id, "anthropic");
  }
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
    .post("/v1/responses", ({ request }) => createResponse(relay, request), { parse: "none", detail: docs.createResponse })
    .get("/v1/responses/:id", ({ request, params }) => retrieveResponse(relay, request, params.id), { detail: docs.retrieveResponse })
    .delete("/v1/responses/:id", ({ request, params }) => deleteResponse(relay, request, params.id), { detail: docs.deleteResponse })
    .post("/v1beta/models/:modelMethod", ({ request }) => gemini(relay, request, pathOf(request.url)), { parse: "none", detail: docs.gemini })
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
    // Gemini's model methods first: their paths contain /models too.
    if (request.method === "POST" && geminiPath(path)) return gemini(relay, request, path);
    if (request.method === "POST" && path.includes("/chat/completions")) return chat(relay, request, "openai");
    if (request.method === "GET" && path.includes("/models")) return listModels(relay, request);
    return undefined;
  };
}
