// The proxy's chat routes, a thin adapter over the core's route(): an HTTP request becomes a
// RouteCall (body, session, metadata, forwarded headers, the client's signal), and the result
// becomes the client's answer, the routing facts rendered as x-svc-* headers.
import { parseJsonObject } from "../../core/json-object.ts";
import { CoreError } from "../../core/errors.ts";
import { headerValue } from "../../core/header-value.ts";
import type { Caller, CallFormat } from "../../core/router/call.ts";
import type { RouteFacts, RouteResult } from "../../core/router/result.ts";
import { route } from "../../core/router/route.ts";
import { clientInputError } from "../../core/router/validate.ts";
import type { Relay } from "../../relay.ts";
import { requestInfo } from "../app.ts";
import { readBody } from "../body.ts";
import { errorResponse, errorStyleOf } from "../http.ts";

/** Spec §6: /v1/messages serves the first vendor's models only; other vendors' go through /v1/chat/completions. */
const NATIVE_MESSAGES_ONLY = "Native /v1/messages only supports Anthropic models; use /v1/chat/completions for other vendors";

/** What a format names in the URL instead of the body (Gemini's `models/{model}:streamGenerateContent`). */
export interface InUrl {
  model: string;
  stream: boolean;
  /** The headers to forward, when the surface added to the request's own (a `?key=` as its header). */
  headers: Headers;
}

/**
 * What a format keeps around route() (the Responses API's stored conversations): the body routed
 * in place of the client's, the bytes a vendor of the call's format gets as they are (undefined:
 * encoded from that body), and a last step on the result before it is rendered.
 */
export interface Turn {
  body: Record<string, unknown>;
  rawBody: string | undefined;
  settle(result: RouteResult): Promise<RouteResult>;
}

export type TurnOf = (relay: Relay, body: Record<string, unknown>, rawBody: string) => Promise<Turn>;

export async function chat(relay: Relay, request: Request, format: CallFormat, inUrl?: InUrl, turnOf?: TurnOf): Promise<Response> {
  const ri = requestInfo(request);
  let result: RouteResult;
  let turn: Turn | undefined;
  try {
    const rawBody = await readBody(request, relay.config().server.bodyLimitBytes);
    const body = parseJsonObject(rawBody);
    // Into the body the router reads, never the bytes sent on (see the Gemini codec's decodeRequest).
    if (inUrl) {
      body.model = inUrl.model;
      body.stream = inUrl.stream;
    }
    const nativeOnly = format === "anthropic" ? NATIVE_MESSAGES_ONLY : undefined;
    const caller = callerOf(request, inUrl?.headers ?? request.headers);
    if (turnOf) turn = await turnOf(relay, body, rawBody);
    result = await route(relay, {
      format,
      body: turn ? turn.body : body,
      rawBody: turn ? turn.rawBody : rawBody,
      caller,
      signal: request.signal,
      id: ri.id,
      start: ri.start,
      at: ri.at,
      nativeOnly,
    });
  } catch (e) {
    const err = clientInputError(e);
    if (err) return errorResponse(err, ri.id, errorStyleOf(format));
    throw e;
  }
  return render(turn ? await turn.settle(result) : result, ri.id, format);
}

/** The error style of a call format: the Responses API answers errors as OpenAI does. */

export const sessionKeyOf = (h: Headers): string | undefined => h.get("x-svc-session") ?? h.get("x-claude-code-session-id") ?? undefined;

function callerOf(request: Request, headers: Headers): Caller {
  return { surface: "proxy", session: sessionKeyOf(headers), metadata: metadataOf(headers), headers, url: request.url };
}

function metadataOf(h: Headers): Record<string, unknown> | undefined {
  const raw = h.get("x-svc-metadata");
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new CoreError(400, "invalid_request", "x-svc-metadata must be a JSON object", { details: { parameter: "x-svc-metadata", expected: "JSON object" } });
}

function render(result: RouteResult, requestId: string, format: CallFormat): Response {
  if (result.kind === "error") return errorResponse(result.error, requestId, errorStyleOf(format));
  const headers = routingHeaders(result.contentType, result.facts);
  if (result.kind === "stream") headers["cache-control"] = "no-cache";
  return new Response(result.body, { status: 200, headers });
}

/**
 * The answer's headers: its content type, then the x-svc-* routing facts and the forwarded vendor
 * headers, in one object. Every value made of client or plugin text goes through headerValue
 * (percent-encoded beyond printable ASCII), so the Response accepts it.
 */
export function routingHeaders(contentType: string, facts: RouteFacts): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": contentType,
    "x-svc-request-id": facts.requestId,
    "x-svc-requested-model": headerValue(facts.requestedModel),
    "x-svc-routed-model": headerValue(facts.routedModel),
    "x-svc-provider": headerValue(facts.provider),
    "x-svc-strategy": headerValue(facts.strategy),
    "x-svc-fallback-used": String(facts.fallbackUsed),
    "x-svc-attempts": String(facts.attempts),
    "x-svc-estimated-cost": facts.costUsd.toFixed(6),
    "x-svc-overhead-ms": facts.overheadMs.toFixed(2),
  };
  if (facts.tier) h["x-svc-complexity-tier"] = headerValue(facts.tier);
  if (facts.reasons.length) h["x-svc-routing-reasons"] = headerValue(facts.reasons.join("; "));
  if (facts.droppedParams.length) h["x-svc-dropped-params"] = headerValue(facts.droppedParams.join(","));
  if (facts.maxTokensCapped !== undefined) h["x-svc-max-tokens-capped"] = String(facts.maxTokensCapped);
  // Vendor headers (rate limits, request ids) never share a name with ours.
  for (const name in facts.vendorHeaders) h[name] = facts.vendorHeaders[name]!;
  return h;
}
