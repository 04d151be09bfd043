// OpenAPI operations of the hosted API's key routes (src/surfaces/cloud/keys.ts) and the guard's
// answers every guarded route shares (src/surfaces/cloud/auth.ts).
import { Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { ACCESS_TOKEN_SCHEME, API_KEY_SCHEME, type Operation, errorResponses, jsonRequestBody, jsonResponse, pathParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const KeyType = T.Union([T.Literal("standard"), T.Literal("read_only")], { description: "standard: every route; read_only: health, usage and logs only" });

const ApiKey = T.Object(
  {
    id: T.String({ pattern: "^key_" }),
    team_id: T.String({ pattern: "^team_" }),
    type: KeyType,
    name: T.String(),
    prefix: T.String({ description: "the key's first characters (rk_live_ and four more), to tell keys apart; not usable" }),
    created_at: Iso,
    revoked_at: T.Union([Iso, T.Null()]),
  },
  { $id: "ApiKey", description: "An API key as listed: never its secret." },
);

const MintedKey = T.Object(
  { key: ApiKey, api_key: T.String({ pattern: "^rk_live_", description: "the secret, shown in this answer only; send it as x-api-key" }) },
  { $id: "MintedKey" },
);

const NewKey = T.Object(
  { type: T.Optional(KeyType), name: T.Optional(T.String({ maxLength: 200 })) },
  { $id: "NewKey", description: "type defaults to standard (read-only is also accepted)" },
);

const RATE_HEADERS = {
  "x-ratelimit-limit": { description: "the plan's requests per minute", schema: { type: "integer" } },
  "x-ratelimit-remaining": { description: "requests left in the current minute", schema: { type: "integer" } },
  "x-ratelimit-reset": { description: "seconds until the whole limit is free again", schema: { type: "integer" } },
};

// Not required: a signed-in user's access token (Authorization: Bearer rat_…) may stand in for it.
const API_KEY_HEADER = { name: "x-api-key", in: "header" as const, required: false, description: "a key of the team (rk_live_…); or send a user's access token as Authorization: Bearer", schema: { type: "string" } as never };

/** A route behind the hosted guard: the key header, the guard's refusals, the rate-limit headers on success. */
export function guarded(op: Operation, readOnlyAllowed: boolean): Operation {
  const responses: Record<string, object> = { ...op.responses };
  for (const status of Object.keys(responses)) if (status.startsWith("2")) responses[status] = { ...responses[status], headers: RATE_HEADERS };
  const refusals: Record<number, string> = {
    401: "neither x-api-key nor an access token (missing_api_key); the key unknown or revoked (invalid_api_key); the token unknown, expired or revoked (invalid_access_token)",
    429: "the team's plan allows no more requests this minute (rate_limit_exceeded); Retry-After and the x-ratelimit-* headers are set",
  };
  if (!readOnlyAllowed) refusals[403] = "a read-only key (or a read_only member's token) on a route that needs a standard key (permission_denied)";
  return {
    tags: ["hosted"],
    security: [{ [API_KEY_SCHEME]: [] }, { [ACCESS_TOKEN_SCHEME]: [] }],
    ...op,
    parameters: [API_KEY_HEADER, ...(op.parameters ?? [])],
    responses: withHostedErrors(responses, refusals),
  } as Operation;
}

const keyId = pathParameter("id", T.String({ pattern: "^key_" }), "the key's id (key_…)");

export const listKeys = guarded(
  { summary: "The team's API keys", description: "Every key of the caller's team, revoked ones included, oldest first; never a secret.", responses: { 200: jsonResponse("The keys", T.Object({ keys: T.Array(ApiKey) })) } },
  true,
);

export const createKey = guarded(
  {
    summary: "Create an API key",
    description: "A new key of the caller's team. Its secret is in this answer only.",
    requestBody: jsonRequestBody(NewKey),
    responses: {
      201: jsonResponse("The key and its secret", MintedKey),
      ...errorResponses("spec", { 400: "type or name invalid (details.parameter names it)", 413: "body over 64 KB (request_too_large)" }),
    },
  },
  false,
);

export const rotateKey = guarded(
  {
    summary: "Rotate an API key",
    description: "A new key of the same type; the old one stays valid until revoked (DELETE /api/keys/{id}), so clients can move over with no gap.",
    parameters: [keyId],
    responses: { 201: jsonResponse("The new key and its secret", MintedKey), ...errorResponses("spec", { 404: "no such key in this team", 409: "the key is revoked (key_revoked)" }) },
  },
  false,
);

export const revokeKey = guarded(
  {
    summary: "Revoke an API key",
    description: "The key authenticates nothing from now on (the next request with it is a 401). Revoking a revoked key changes nothing.",
    parameters: [keyId],
    responses: { 200: jsonResponse("The key, with revoked_at", T.Object({ key: ApiKey })), ...errorResponses("spec", { 404: "no such key in this team" }) },
  },
  false,
);
