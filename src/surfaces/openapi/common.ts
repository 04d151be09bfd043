// Building blocks of the routes' OpenAPI operations (the `detail` each route
// carries): JSON bodies, the error responses of each error style, admin auth.
import type { TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import type { ErrorStyle } from "../http.ts";
import { AnthropicError, GeminiError, OpenAIError, SpecError } from "../schemas.ts";

export type Operation = DocumentDecoration;
type Responses = NonNullable<Operation["responses"]>;
type Parameter = NonNullable<Operation["parameters"]>[number];

/** Names the document's components use; openapi.ts defines them. */
export const ADMIN_SCHEME = "adminToken";
export const SESSION_SCHEME = "dashboardSession";
/** The cloud listener's: a team's API key in x-api-key, or a signed-in user's access token as a Bearer. */
export const API_KEY_SCHEME = "apiKey";
export const ACCESS_TOKEN_SCHEME = "accessToken";

/**
 * A JSON Schema where Elysia's `detail` types expect an OpenAPI 3.0 schema
 * object: OpenAPI 3.1 takes JSON Schema 2020-12 (and so TypeBox) as is.
 */
export const asSchema = (s: TSchema | object) => s as never;

export const jsonContent = (schema: TSchema) => ({ "application/json": { schema: asSchema(schema) } });

export const jsonResponse = (description: string, schema: TSchema, headers?: Record<string, object>) => ({
  description,
  content: jsonContent(schema),
  ...(headers ? { headers } : {}),
});

export const jsonRequestBody = (schema: TSchema, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: jsonContent(schema),
});

export const queryParameter = (name: string, schema: TSchema, description?: string): Parameter => ({
  name,
  in: "query",
  required: false,
  ...(description ? { description } : {}),
  schema: asSchema(schema),
});

export const pathParameter = (name: string, schema: TSchema, description: string): Parameter => ({
  name,
  in: "path",
  required: true,
  description,
  schema: asSchema(schema),
});

export const headerParameter = (name: string, description: string): Parameter => ({
  name,
  in: "header",
  required: false,
  description,
  schema: asSchema({ type: "string" }),
});

const ERROR_SCHEMA: Record<ErrorStyle, TSchema> = { spec: SpecError, anthropic: AnthropicError, openai: OpenAIError, gemini: GeminiError };

/** Error responses of one style, keyed by HTTP status. */
export function errorResponses(style: ErrorStyle, byStatus: Record<number, string>): Responses {
  const out: Responses = {};
  for (const [status, description] of Object.entries(byStatus)) out[status] = jsonResponse(description, ERROR_SCHEMA[style]);
  return out;
}

/** An admin-guarded operation: the bearer token or the dashboard's session cookie, and the refusal without either. */
export function admin(op: Operation): Operation {
  return {
    ...op,
    security: [{ [ADMIN_SCHEME]: [] }, { [SESSION_SCHEME]: [] }],
    responses: {
      ...op.responses,
      ...errorResponses("spec", {
        401: "Admin token missing or wrong: always required, on loopback too (adminToken / RELAY_ADMIN_TOKEN, else $RELAY_HOME/admin-token), or the dashboard's session cookie",
      }),
    },
  };
}

/**
 * What the browser guard (src/surfaces/browser-guard.ts) answers before any
 * route, in the route's error style: every route can answer 421 and 403, every
 * POST route 415 too.
 */
export function guardResponses(style: ErrorStyle, post: boolean): Responses {
  const refusals: Record<number, string> = {
    403: "A browser request from another origin: the Origin header is neither this listener's own origin nor in server.corsOrigins",
    421: "The Host header is not this Relay's address (DNS rebinding): on loopback, only 127.0.0.1, localhost or [::1] with this port, or a name in server.allowedHosts",
  };
  if (post) refusals[415] = "The body is not declared JSON: send Content-Type: application/json (or a +json type)";
  return errorResponses(style, refusals);
}
