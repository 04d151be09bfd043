// OpenAPI operation of POST /api/relay (src/surfaces/cloud/relay.ts), spec §2.1–2.2 and §4.1.
import { Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { asSchema, errorResponses, headerParameter, jsonRequestBody } from "./common.ts";

const RelayRequest = T.Object(
  {
    to: T.String({ description: "a model id or alias the catalog resolves, or a virtual model (svc:auto, …)" }),
    payload: T.Object(
      { stream: T.Optional(T.Boolean({ description: "stream the vendor's events (needs Accept: text/event-stream)" })) },
      {
        additionalProperties: true,
        description:
          "the model's own request body in its vendor's format: OpenAI chat (`messages`) or Responses (`input` without `messages`) for OpenAI models, Anthropic messages, Gemini generateContent (`contents`); a virtual model takes OpenAI chat, Responses or Gemini's shape. Its `model` is set to `to`.",
      },
    ),
    metadata: T.Optional(T.Object({}, { additionalProperties: true, description: "free-form tracking data, stored with the run" })),
  },
  { $id: "RelayRequest" },
);

const RelayFields = {
  relay_id: T.String({ pattern: "^evt_rel_" }),
  status_code: T.Integer({ description: "the vendor's status" }),
  latency_ms: T.Integer(),
  fallback_used: T.Boolean({ description: "true when another model than `to` served the call" }),
};

const RelayResponse = T.Object(
  { ...RelayFields, body: T.Object({}, { additionalProperties: true, description: "the vendor's reply or error body, in the payload's format (a fallback's reply translated back)" }) },
  { $id: "RelayResponse" },
);

const RelayEvent = T.Object(
  { ...RelayFields, body: T.Optional(T.Object({}, { additionalProperties: true, description: "only when the vendor refused before its first event: its error body" })) },
  { $id: "RelayEvent", description: "The data of the stream's last event, `event: relay`" },
);

export const relay = guarded(
  {
    summary: "Relay a call to a model",
    description:
      "Routes `payload` to `to` through Relay's router (fallback chains, budgets and limits apply). When a vendor's answer is its final word (a success, or a 4xx error no other candidate is tried for), the relay is a 200 carrying the vendor's status and body; when every candidate failed retryably (5xx, 429, no answer) and Relay's own refusals, the answer is the hosted error object (error.attempts lists each candidate's failure). With payload.stream true and Accept: text/event-stream, the answer is the vendor's event stream followed by one `event: relay` whose data is RelayEvent.",
    parameters: [
      headerParameter("Idempotency-Key", "non-streaming relays only (a 400 on a stream): a retry of the same request answers the first relay again (Idempotent-Replayed: true) without calling the vendor"),
      headerParameter("Accept", "text/event-stream, required when payload.stream is true"),
    ],
    requestBody: jsonRequestBody(RelayRequest),
    responses: {
      200: {
        description: "The relay response, or with payload.stream the vendor's events and the final relay event",
        content: { "application/json": { schema: asSchema(RelayResponse) }, "text/event-stream": { schema: asSchema(RelayEvent) } },
      },
      ...errorResponses("spec", {
        400: "a field is missing or invalid (details.parameter names it: to, payload, metadata, accept, idempotency-key, or a payload field by its path, e.g. payload.messages), or `to` is not a known model (model_not_found, details.parameter to)",
        409: "a request with this Idempotency-Key is still running (idempotency_key_in_use)",
        413: "body over server.bodyLimitBytes (request_too_large)",
        422: "this Idempotency-Key was used for a different request (idempotency_key_reused)",
        500: "every candidate failed (all_candidates_failed, error.attempts lists them), no vendor credential for the model (missing_api_key), or Relay's own fault",
        503: "every candidate model is cooling down (provider_cooled_down)",
      }),
    },
  },
  false,
);
