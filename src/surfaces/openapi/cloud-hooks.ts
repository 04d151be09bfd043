// OpenAPI operations of the workflow trigger paths (src/surfaces/cloud/hooks.ts): POST and PUT on
// /hooks/{team}/{path}; the trigger's configured method is the one that answers 202.
import { Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { type Operation, jsonRequestBody, jsonResponse, pathParameter } from "./common.ts";
import { Run } from "./cloud-workflows.ts";

const DESCRIPTION =
  "Starts a run of the deployed workflow whose trigger (the deploy body's `trigger`) has this endpoint path; the JSON body is the run's input, read by `{{input.…}}`. " +
  "Answers 202 at once with the queued run; it goes on in the background as a durable run (GET /api/v1/webhooks/runs/{id} reads it). " +
  "No API key: the trigger's `headers` must be present with their values, and with a `secret` the call must be signed — with `signatureHeader`, that header holds `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>`; " +
  "without it, the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature. The timestamp must be within 300 seconds of the server's clock, and a delivery seen already is refused. " +
  "Send Content-Type: application/json. Other methods on a trigger path answer 405 with Allow.";

const signedHeaders = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => ({
  name,
  in: "header" as const,
  required: false,
  description: "Standard Webhooks signature headers, for a trigger with a secret and no signatureHeader",
  schema: { type: "string" } as never,
}));

export const trigger = (method: "POST" | "PUT"): Operation =>
  ({
    tags: ["workflow triggers"],
    security: [],
    summary: `Trigger a workflow (${method})`,
    description: DESCRIPTION,
    parameters: [
      pathParameter("team", T.String(), "the team's id"),
      pathParameter("path", T.String(), "the trigger's endpoint path; may contain /"),
      ...signedHeaders,
    ],
    requestBody: jsonRequestBody(T.Object({}, { additionalProperties: true, description: "the run's input" })),
    responses: withHostedErrors(
      { 202: jsonResponse("The run, queued", T.Object({ run: Run })) },
      {
        400: "the body is not a JSON object (invalid_request)",
        401: "a configured header missing or different (invalid_header); the signature missing, wrong or its timestamp over 300 s from the server's clock (invalid_signature); a delivery received already (replayed_delivery)",
        403: "the team's Cloud features are off (cloud_disabled)",
        404: "no trigger at this path in this team (not_found)",
        405: `the trigger takes ${method === "POST" ? "PUT" : "POST"} (method_not_allowed); Allow names it`,
        413: "body over 1 MB (request_too_large)",
        415: "a body without a JSON Content-Type (unsupported_media_type: the listener's browser guard)",
        429: "the trigger's rateLimit is reached (rate_limit_exceeded); Retry-After says when to come back",
      },
    ),
  }) as Operation;
