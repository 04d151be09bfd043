// OpenAPI operations of the hosted API's webhook routes (src/surfaces/cloud/webhooks.ts); what a
// delivery carries and how to verify it is in README "Webhooks" and src/core/webhooks/.
import { Type as T } from "@sinclair/typebox";
import { EVENT_TYPE_NAMES, EVENT_TYPES } from "../../core/webhooks/events.ts";
import { MAX_ENDPOINTS } from "../../core/webhooks/endpoints.ts";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, headerParameter, jsonRequestBody, jsonResponse, pathParameter, queryParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const EventType = T.Union(EVENT_TYPE_NAMES.map((e) => T.Literal(e)), {
  description: EVENT_TYPE_NAMES.map((e) => `${e}: ${EVENT_TYPES[e]}`).join("; "),
});
const PLAN = "Pro plan only: another plan's team gets 403 plan_upgrade_required (details.plans names the plans that have it).";

const Endpoint = T.Object(
  {
    id: T.String({ pattern: "^we_" }),
    url: T.String({ format: "uri" }),
    events: T.Array(EventType),
    description: T.String(),
    enabled: T.Boolean({ description: "false once the receiver answered 410 Gone: nothing more is sent to it" }),
    created_at: Iso,
  },
  { $id: "WebhookEndpoint", description: "A webhook endpoint as listed: never its secret." },
);

const WithSecret = T.Object(
  {
    webhook: Endpoint,
    secret: T.String({ pattern: "^whsec_", description: "the signing secret (Standard Webhooks: whsec_ + base64 of 32 bytes), shown in this answer only" }),
  },
  { $id: "WebhookEndpointWithSecret" },
);

const NewEndpoint = T.Object(
  {
    url: T.String({ format: "uri", maxLength: 2048, description: "http or https; a public address unless the operator set cloud.allowPrivateNetworks" }),
    events: T.Array(EventType, { minItems: 1, description: "the event types to receive" }),
    description: T.Optional(T.String({ maxLength: 500 })),
  },
  { $id: "NewWebhookEndpoint" },
);

const Attempt = T.Object({
  attempt: T.Integer({ minimum: 1 }),
  at: Iso,
  response_status: T.Union([T.Integer(), T.Null()], { description: "the receiver's status; null when it did not answer" }),
  error: T.Union([T.String(), T.Null()]),
  duration_ms: T.Integer(),
});

const Delivery = T.Object(
  {
    id: T.String({ pattern: "^msg_", description: "the webhook-id header, the same on every attempt" }),
    event_type: EventType,
    status: T.Union([T.Literal("pending"), T.Literal("succeeded"), T.Literal("failed")]),
    attempts: T.Integer({ description: "attempts made so far" }),
    next_attempt_at: T.Union([Iso, T.Null()]),
    last_status: T.Union([T.Integer(), T.Null()]),
    last_error: T.Union([T.String(), T.Null()]),
    created_at: Iso,
    updated_at: Iso,
    payload: T.Object({ type: EventType, timestamp: Iso, data: T.Object({}, { additionalProperties: true }) }, { description: "the body sent" }),
    attempt_log: T.Array(Attempt, { description: "every attempt, oldest first" }),
  },
  { $id: "WebhookDelivery" },
);

const endpointId = pathParameter("id", T.String({ pattern: "^we_" }), "the endpoint's id (we_…)");

export const createWebhook = guarded(
  {
    summary: "Register a webhook endpoint",
    description: `Events of the chosen types are POSTed to the URL, signed per Standard Webhooks. The signing secret is in this answer only. At most ${MAX_ENDPOINTS} endpoints per team. ${PLAN}`,
    parameters: [headerParameter("Idempotency-Key", "up to 255 characters; the first successful answer is replayed for the same request")],
    requestBody: jsonRequestBody(NewEndpoint),
    responses: {
      201: jsonResponse("The endpoint and its secret", WithSecret),
      ...errorResponses("spec", {
        400: "url or events invalid (details.parameter names it), or unsafe_url / url_unreachable: the URL is not one Relay may call",
        409: `the team has ${MAX_ENDPOINTS} endpoints (webhook_limit_reached), or a request with this Idempotency-Key is still running`,
        413: "body over 64 KB (request_too_large)",
        422: "this Idempotency-Key was used for a different request (idempotency_key_reused)",
      }),
    },
  },
  false,
);

export const listWebhooks = guarded(
  {
    summary: "The team's webhook endpoints",
    description: `Oldest first; never a secret. ${PLAN}`,
    responses: { 200: jsonResponse("The endpoints", T.Object({ webhooks: T.Array(Endpoint) })), ...errorResponses("spec", { 403: "plan_upgrade_required" }) },
  },
  true,
);

export const deleteWebhook = guarded(
  {
    summary: "Remove a webhook endpoint",
    description: `Nothing more is sent to it, pending deliveries included; its deliveries are removed with it. ${PLAN}`,
    parameters: [endpointId],
    responses: { 200: jsonResponse("The removed endpoint", T.Object({ webhook: Endpoint, deleted: T.Literal(true) })), ...errorResponses("spec", { 404: "no such endpoint in this team" }) },
  },
  false,
);

export const rotateSecret = guarded(
  {
    summary: "Give a webhook endpoint a new signing secret",
    description: `The new secret is in this answer only. For 24 hours deliveries carry two signatures in webhook-signature (space-separated), one per secret, so the receiver can move over with no gap. ${PLAN}`,
    parameters: [endpointId],
    responses: { 200: jsonResponse("The endpoint and its new secret", WithSecret), ...errorResponses("spec", { 404: "no such endpoint in this team" }) },
  },
  false,
);

export const listDeliveries = guarded(
  {
    summary: "An endpoint's deliveries",
    description: `Newest first, each with its attempts. ${PLAN}`,
    parameters: [
      endpointId,
      queryParameter("limit", T.Integer({ minimum: 1, maximum: 100, default: 50 }), "page size (capped at 100)"),
      queryParameter("offset", T.Integer({ minimum: 0, default: 0 })),
    ],
    responses: {
      200: jsonResponse("A page of deliveries", T.Object({ deliveries: T.Array(Delivery), total: T.Integer(), limit: T.Integer(), offset: T.Integer() })),
      ...errorResponses("spec", { 400: "limit or offset not an integer in range", 403: "plan_upgrade_required", 404: "no such endpoint in this team" }),
    },
  },
  true,
);

export const retryDelivery = guarded(
  {
    summary: "Send a failed delivery again",
    description: `One more attempt, now; it keeps its webhook-id. ${PLAN}`,
    parameters: [endpointId, pathParameter("delivery", T.String({ pattern: "^msg_" }), "the delivery's id (msg_…)")],
    responses: {
      202: jsonResponse("Queued", T.Object({ id: T.String(), status: T.Literal("pending") })),
      ...errorResponses("spec", { 404: "no such endpoint or delivery", 409: "the delivery is not failed (delivery_not_failed)" }),
    },
  },
  false,
);
