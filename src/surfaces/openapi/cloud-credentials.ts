// OpenAPI operations of the hosted API's stored provider credentials (src/surfaces/cloud/credentials.ts).
import { Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, jsonRequestBody, jsonResponse, pathParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });

const Credential = T.Object(
  {
    provider: T.String({ description: "the provider the key is for (openai, anthropic, …)" }),
    masked_key: T.String({ description: "… and the key's last four characters (… alone for a key under 16 characters); never the key" }),
    created_at: Iso,
    rotated_at: T.Union([Iso, T.Null()], { description: "when the key was last replaced; null until then" }),
  },
  { $id: "StoredCredential", description: "A stored provider key as answered: masked, never in clear." },
);

const NewCredential = T.Object(
  {
    provider: T.String({ description: "a loaded provider that takes an API key" }),
    api_key: T.String({ minLength: 8, maxLength: 4096, description: "the provider's key, without spaces; stored sealed (AES-256-GCM) and never answered" }),
  },
  { $id: "NewCredential" },
);

const USE =
  "The team's /api/relay calls use a stored key for its provider in place of the server's own; a provider without one uses the server's. " +
  "A key that cannot be decrypted (the server's master key changed) fails the call with 500 credential_unreadable; nothing is sent to the vendor.";

export const putCredential = guarded(
  {
    summary: "Store or replace a provider key",
    description: `Stores the team's key for a provider, sealed under the server's master key; a key already stored for that provider is replaced (rotated_at is set). ${USE}`,
    requestBody: jsonRequestBody(NewCredential),
    responses: {
      200: jsonResponse("The stored key, masked", T.Object({ credential: Credential })),
      ...errorResponses("spec", {
        400: "provider is not a loaded provider that takes a key, or api_key is not a key (details.parameter names the field; a key is never echoed)",
        413: "body over 64 KB (request_too_large)",
        500: "Relay's own fault: the server's master key is not usable (master_key_unavailable; the server's log says why), or its store failed (internal_error)",
      }),
    },
  },
  false,
);

export const listCredentials = guarded(
  {
    summary: "The team's stored provider keys",
    description: "Each stored key, by provider, masked: its provider, last four characters and dates.",
    responses: { 200: jsonResponse("The stored keys", T.Object({ credentials: T.Array(Credential) })) },
  },
  true,
);

export const deleteCredential = guarded(
  {
    summary: "Remove a stored provider key",
    description: "The team's calls to that provider use the server's key again from the next request.",
    parameters: [pathParameter("provider", T.String(), "the provider whose key to remove")],
    responses: {
      200: jsonResponse("The removed key, masked", T.Object({ credential: Credential, deleted: T.Literal(true) })),
      ...errorResponses("spec", { 404: "the team stored no key for this provider (not_found)" }),
    },
  },
  false,
);
