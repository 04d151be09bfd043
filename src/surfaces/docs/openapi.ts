// The OpenAPI 3.1 document, generated from the routes Elysia registered: each
// route's path and method come from the router and its operation from the
// `detail` the route carries (src/surfaces/openapi/*). A route without one is an
// error, so a new route cannot ship undocumented. TypeBox schemas carrying an
// `$id` are moved into components.schemas and referenced from the operations.
//
// Why not @elysiajs/openapi: it documents routes from their validation
// schemas, but the proxy's routes must not validate (they pass unknown vendor
// fields through and answer errors in the client's own format), and its UI
// loads from a CDN. Building the document here keeps both under our control.
import type { AnyElysia } from "elysia";
import { errorStyle } from "../app.ts";
import { ACCESS_TOKEN_SCHEME, ADMIN_SCHEME, API_KEY_SCHEME, SESSION_SCHEME, guardResponses } from "../openapi/common.ts";

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; headers: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const TAGS = [
  { name: "proxy", description: "The model routes: Anthropic Messages, OpenAI Chat Completions, token counting, model list." },
  { name: "service", description: "Health checks." },
  { name: "control", description: "Administrative switches, status and configuration." },
  { name: "telemetry", description: "What the run log says about traffic, spend, savings and provider health." },
  { name: "dashboard", description: "The dashboard's pages, assets and data endpoints." },
  { name: "docs", description: "This document and its browser." },
  { name: "hosted", description: "The hosted API of `relay cloud`: every route needs a team's key in x-api-key (spec §5) or a signed-in user's access token as Authorization: Bearer." },
  { name: "accounts", description: "Accounts of `relay cloud`: sign-up and sign-in (public, throttled) answer an access token; the other routes take it (some an API key too)." },
  { name: "console", description: "The team console of `relay cloud`: its pages and the JSON endpoints its pages call with the console session." },
  { name: "public data", description: "Public reference data of `relay cloud`: the model catalog with prices and capabilities, and the providers; no key needed." },
  { name: "mesh", description: "Routing outcomes shared between proxies: the proxy's mesh sync and stats, and the cloud's telemetry uploads, aggregates and model recommendation." },
  { name: "billing", description: "Billing of the hosted plans through Stripe: checkout and portal sessions for a team, and Stripe's signed webhook." },
  { name: "workflow triggers", description: "Webhook triggers of deployed workflows on `relay cloud`: /hooks/<team>/<endpoint path>, admitted by the trigger's own headers and signature, not an API key." },
  { name: "versions", description: "Versions of `relay cloud`: the API's and the SDK's, and the update check SDKs call; no key needed." },
];

const DESCRIPTION = [
  "Relay routes model requests across vendors.",
  "Errors: the Anthropic routes answer in Anthropic's error shape, the chat-completions and model-list routes in OpenAI's, every other route in the spec's `{error: {code, message, details?}, request_id}`.",
  "Every response carries `x-svc-request-id`.",
  "Admin routes always need the admin token, on loopback too: `Authorization: Bearer <token>` (adminToken / RELAY_ADMIN_TOKEN, else the install's own in `$RELAY_HOME/admin-token`), or from the dashboard's own pages its session cookie (`relay dashboard` prints a sign-in link).",
  "Browsers are refused before any route: a Host that is not this Relay's address gets 421 (DNS rebinding; see server.allowedHosts), an Origin other than this listener's own or one of server.corsOrigins gets 403, and a POST without a JSON content type gets 415 (so a page cannot send one without a CORS preflight).",
].join("\n\n");

const REQUEST_ID_HEADER = { $ref: "#/components/headers/x-svc-request-id" };

/** `/dashboard/api/runs/:id` → `/dashboard/api/runs/{id}`; a trailing wildcard (`/hooks/:team/*`) → `{path}` */
export const openApiPath = (elysiaPath: string): string => elysiaPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");

export function openApiDocument(surfaces: AnyElysia[], info: { title: string; version: string }): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  const undocumented: string[] = [];
  for (const surface of surfaces) {
    for (const route of surface.routes) {
      const detail: Json | undefined = route.hooks?.detail;
      if (!detail?.responses) {
        undocumented.push(`${route.method} ${route.path}`);
        continue;
      }
      const withGuard = withGuardResponses(detail, guardResponses(errorStyle(route.path), route.method === "POST"));
      (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = withRequestIdHeader(withGuard);
    }
  }
  if (undocumented.length) throw new Error(`routes without OpenAPI detail (add one in src/surfaces/openapi): ${undocumented.join(", ")}`);

  const schemas: Record<string, Json> = {};
  return {
    openapi: "3.1.0",
    info: { ...info, description: DESCRIPTION },
    tags: TAGS,
    paths: hoistSchemas(paths, schemas) as OpenApiDocument["paths"],
    components: {
      schemas,
      headers: { "x-svc-request-id": { description: "Relay's id of the request (req_…), also the run-log id", schema: { type: "string", pattern: "^req_" } } },
      securitySchemes: {
        [ADMIN_SCHEME]: { type: "http", scheme: "bearer", description: "The admin token: config adminToken or RELAY_ADMIN_TOKEN, else the install's own in $RELAY_HOME/admin-token." },
        [SESSION_SCHEME]: {
          type: "apiKey",
          in: "cookie",
          name: "relay_admin_<port>",
          description: "The dashboard's session cookie, named for the listener's port, set by POST /dashboard/login; accepted from this listener's own pages only.",
        },
        [API_KEY_SCHEME]: { type: "apiKey", in: "header", name: "x-api-key", description: "`relay cloud`: a team's API key (rk_live_…), from `relay cloud keys create`, POST /api/keys or the console." },
        [ACCESS_TOKEN_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "`relay cloud`: a signed-in user's access token (rat_…) from POST /v1/accounts/signin or signup; acts with the user's team and role (owner and member as a standard key, read_only as a read-only key); expires (cloud.accounts.tokenTtlDays) and can be revoked.",
        },
      },
    },
  };
}

/** The guard's refusals; a status the route documents already keeps its schema and gains the reason. */
function withGuardResponses(op: Json, guard: Json): Json {
  const responses: Json = { ...(op.responses as Json) };
  for (const [status, r] of Object.entries(guard)) {
    const own = responses[status] as Json | undefined;
    responses[status] = own ? { ...own, description: `${own.description}; or: ${(r as Json).description}` } : r;
  }
  return { ...op, responses };
}

function withRequestIdHeader(op: Json): Json {
  const responses: Json = {};
  for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
    responses[status] = { ...r, headers: { "x-svc-request-id": REQUEST_ID_HEADER, ...(r.headers as Json | undefined) } };
  }
  return { ...op, responses };
}

/**
 * A JSON copy of `value` in which every schema with an `$id` is replaced by a
 * reference to its entry in `schemas`. TypeBox's symbol keys are left behind.
 */
function hoistSchemas(value: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((v) => hoistSchemas(v, schemas));
  if (value === null || typeof value !== "object") return value;
  const { $id, ...rest } = value as Json;
  const copy: Json = {};
  for (const [k, v] of Object.entries(rest)) copy[k] = hoistSchemas(v, schemas);
  if (typeof $id !== "string") return copy;
  const known = schemas[$id];
  if (known && JSON.stringify(known) !== JSON.stringify(copy)) throw new Error(`two different schemas share the $id ${$id}`);
  schemas[$id] = copy;
  return { $ref: `#/components/schemas/${$id}` };
}
