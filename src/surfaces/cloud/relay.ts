// POST /api/relay (spec §2.1–2.2, §4.1; README "Relay calls"): a thin adapter over the core's
// route(), like the proxy's chat routes. The payload is routed in its own wire format
// (relay-format.ts) with `to` as its model, and the result becomes the §2.2 relay response. A vendor
// that answered, even with an error, makes the relay a 200 carrying the vendor's status and body;
// Relay's own refusals (validation, key, plan, budget, unknown model, no candidate left) are the
// hosted error object with their own status.
import { CoreError, type FailedAttempt } from "../../core/errors.ts";
import { prefixedId } from "../../core/ids.ts";
import { bool, invalid, object, text } from "../../core/registry/fields.ts";
import type { CallFormat } from "../../core/router/call.ts";
import { readableOf, type RouteResult, type RouteStream } from "../../core/router/result.ts";
import { route } from "../../core/router/route.ts";
import { teamCredentials } from "../../core/tenancy/credentials.ts";
import { emitRelayEvents } from "../../core/webhooks/relay-events.ts";
import type { Relay } from "../../relay.ts";
import { requestInfo } from "../app.ts";
import { errorBody, errorStyleOf } from "../http.ts";
import { CORE, guarded, type HostedAuth } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";
import { payloadFormat } from "./relay-format.ts";

/** The name of the stream's last event, which carries the relay's fields. */
export const RELAY_EVENT = "relay";

const encoder = new TextEncoder();
const JSON_HEADERS = { "content-type": "application/json" };

interface RelayRequest {
  to: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  stream: boolean;
}

function relayRequest(body: Record<string, unknown>): RelayRequest {
  const to = text(body.to, "to", 256);
  const payload = object(body.payload, "payload");
  const metadata = body.metadata === undefined ? {} : object(body.metadata, "metadata");
  const stream = payload.stream === undefined ? false : bool(payload.stream, "payload.stream");
  return { to, payload, metadata, stream };
}

/** The handler of POST /api/relay, guarded: standard keys, counted against the team's plan. */
export function relayHandler(relay: Relay) {
  return guarded(relay, CORE, async (request, auth) => {
    const raw = await hostedText(request, relay.config().server.bodyLimitBytes);
    const input = relayRequest(jsonObjectOf(raw));
    if (!input.stream) return idempotent(relay, auth.team.id, request, raw, () => relayOnce(relay, request, auth, input));
    if (!request.headers.get("accept")?.includes("text/event-stream")) {
      throw invalid("accept", request.headers.get("accept"), "text/event-stream", "must be text/event-stream when payload.stream is true");
    }
    // A stream cannot be replayed from a stored answer, and a retry would call the vendor again.
    if (request.headers.has("idempotency-key")) {
      throw invalid("idempotency-key", request.headers.get("idempotency-key"), "absent", "is not accepted on a streaming relay: a stream cannot be replayed");
    }
    return relayOnce(relay, request, auth, input);
  });
}

async function relayOnce(relay: Relay, request: Request, auth: HostedAuth, input: RelayRequest): Promise<Response> {
  const ri = requestInfo(request);
  const relayId = prefixedId("evt_rel");
  const { to, payload } = input;
  const format = payloadFormat(relay, to, payload);
  // Gemini names its model in the URL, so its bytes go on without one (as on the proxy's Gemini routes).
  const geminiBytes = format === "gemini" ? JSON.stringify(payload) : undefined;
  payload.model = to;
  const credentials = await teamCredentials(relay, auth.team.id);
  const result = await route(relay, {
    format,
    body: payload,
    rawBody: geminiBytes ?? JSON.stringify(payload),
    // The run is the team's (runs.team_id); the relay id rides in the metadata under Relay's own key,
    // which the team's request log shows as relay_id and strips from the caller's metadata (request-log.ts).
    // The team's stored provider keys are used in place of the server's (src/core/tenancy/credentials.ts).
    caller: { surface: "hosted", team: auth.team.id, credentials, metadata: { ...input.metadata, svc_relay_id: relayId } },
    signal: request.signal,
    id: ri.id,
    start: ri.start,
    at: ri.at,
  });
  emitRelayEvents(relay, auth.team, { relayId, requestId: ri.id, to }, result);
  const latency = () => Math.round(performance.now() - ri.start);
  if (result.kind === "stream") return streamed(result, relayId, latency);
  const { status, body, fallback } = vendorAnswer(result, ri.id, format);
  const fields = { relay_id: relayId, status_code: status, latency_ms: latency(), fallback_used: fallback };
  if (input.stream) return sse(readableOf(""), fields, body);
  // The body's text is JSON already (the vendor's own bytes when they could go as they are): spliced, not re-encoded.
  return new Response(`{"relay_id":"${relayId}","status_code":${status},"latency_ms":${fields.latency_ms},"body":${body},"fallback_used":${fallback}}`, { headers: JSON_HEADERS });
}

/** The vendor's status and body (JSON text) of a whole answer or a vendor's error; Relay's own refusal is thrown. */
function vendorAnswer(result: Exclude<RouteResult, RouteStream>, requestId: string, format: CallFormat): { status: number; body: string; fallback: boolean } {
  if (result.kind === "answer") return { status: 200, body: result.body, fallback: result.facts.fallbackUsed };
  const err = result.error;
  if (err.extra.attempts) throw allFailed(err.extra.attempts, err);
  if (err.code !== "provider_error") throw refusal(err);
  const body = JSON.stringify(errorBody(err, requestId, errorStyleOf(format)));
  return { status: err.status, body, fallback: result.record?.fallbackUsed ?? false };
}

/**
 * Every candidate failed in a way another attempt could fix (a vendor's 5xx or 429, no answer at all):
 * Relay's refusal, not a vendor's answer to carry. 429 when each was a rate limit (Retry-After as the
 * last vendor asked), else 500; `attempts` names each candidate's failure.
 */
function allFailed(attempts: FailedAttempt[], last: CoreError): CoreError {
  const limited = attempts.every((a) => a.status === 429);
  const list = attempts.map((a) => `${a.model} (${a.provider}): ${a.status} ${a.message}`).join("; ");
  return new CoreError(limited ? 429 : 500, limited ? "rate_limit_exceeded" : "all_candidates_failed", `Every candidate failed: ${list}`, {
    attempts,
    retryAfter: limited ? last.extra.retryAfter : undefined,
  });
}

/** The core names fields of the body it routes: on the relay its `model` is `to` and the rest are the payload's. */
function refusal(err: CoreError): CoreError {
  const details = err.extra.details;
  if (!details) return err;
  const parameter = details.parameter === "model" ? "to" : `payload.${details.parameter}`;
  return new CoreError(err.status, err.code, err.message, { ...err.extra, details: { ...details, parameter } });
}

interface RelayFields {
  relay_id: string;
  status_code: number;
  latency_ms: number;
  fallback_used: boolean;
}

function streamed(result: RouteStream, relayId: string, latency: () => number): Response {
  const events = readableOf(result.body);
  return sse(events, () => ({ relay_id: relayId, status_code: 200, latency_ms: latency(), fallback_used: result.facts.fallbackUsed }));
}

/**
 * The vendor's events, then `event: relay` with the relay's fields, measured when the vendor's
 * stream ended. A vendor that refused before its first event leaves only that event, with its error `body`.
 */
function sse(events: ReadableStream<Uint8Array>, fields: RelayFields | (() => RelayFields), errorBodyText?: string): Response {
  const last = new TransformStream<Uint8Array, Uint8Array>({
    flush(controller) {
      const data = JSON.stringify(typeof fields === "function" ? fields() : fields);
      const withBody = errorBodyText === undefined ? data : `${data.slice(0, -1)},"body":${errorBodyText}}`;
      controller.enqueue(encoder.encode(`event: ${RELAY_EVENT}\ndata: ${withBody}\n\n`));
    },
  });
  return new Response(events.pipeThrough(last), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
