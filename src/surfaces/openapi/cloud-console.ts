// OpenAPI operations of the team console (src/surfaces/console/): its pages, its sign-in, and the
// JSON endpoints its pages call, which take the console's session cookie instead of x-api-key.
import { Type as T } from "@sinclair/typebox";
import * as agentDocs from "./cloud-agents.ts";
import { withHostedErrors } from "./cloud.ts";
import * as keyDocs from "./cloud-keys.ts";
import * as logDocs from "./cloud-logs.ts";
import * as workflowDocs from "./cloud-workflows.ts";
import { type Operation, asSchema, errorResponses, jsonRequestBody, jsonResponse, pathParameter } from "./common.ts";

const tags = ["console"];
const HTML = { "text/html": { schema: asSchema({ type: "string" }) } };

const SESSION_COOKIE = {
  name: "relay_console_<port>",
  in: "cookie" as const,
  required: true,
  description: "the console's session, set by POST /console/login; accepted from the console's own pages only (a foreign Origin or a cross-site Sec-Fetch-Site is refused, and a POST or DELETE must carry its Origin)",
  schema: { type: "string" } as never,
};

const REFUSALS = {
  401: "no console session, or it ended: expired, signed out, or its key was revoked (session_required, session_expired)",
  403: "a request not made by the console's own pages (forbidden_origin)",
  429: "the team's plan allows no more requests this minute (rate_limit_exceeded); Retry-After and the x-ratelimit-* headers are set",
};

/** A console endpoint: the session cookie and its refusals; `manage`: a read-only key's session is refused (403). */
function viaSession(op: Operation, manage = false): Operation {
  const refusals: Record<number, string> = { ...REFUSALS };
  if (manage) refusals[403] = `${refusals[403]}; or the session's key is read-only (permission_denied)`;
  return { ...op, tags, parameters: [SESSION_COOKIE, ...(op.parameters ?? [])], responses: withHostedErrors(op.responses ?? {}, refusals) } as Operation;
}

/** A hosted route's operation served to the console: the same answers, the session instead of x-api-key. */
function fromHostedRoute(op: Operation, manage: boolean): Operation {
  const parameters = (op.parameters ?? []).filter((p) => !("name" in p && p.name === "x-api-key"));
  const { 401: _401, 403: _403, 429: _429, ...responses } = op.responses ?? {};
  return viaSession({ summary: op.summary, description: op.description, requestBody: op.requestBody, parameters, responses }, manage);
}

export const page = (name: string): Operation => ({
  tags,
  summary: `Console: ${name}`,
  description: "The page (no data: its script calls /console/api/…); 303 to /console/login without a session.",
  responses: { 200: { description: "The page", content: HTML }, 303: { description: "Not signed in: to /console/login" } },
});

export const loginPage: Operation = { tags, summary: "Console: sign in with an API key", responses: { 200: { description: "The page", content: HTML } } };

const Who = T.Object(
  {
    team: T.Object({ id: T.String(), name: T.String(), plan: T.String() }),
    key: T.Object({ id: T.String(), type: T.String(), name: T.String(), prefix: T.String() }, { additionalProperties: true }),
    plan: T.Object({}, { additionalProperties: true, description: "the plan's row of the plans table (rate, retention, features)" }),
    export_plans: T.Array(T.String(), { description: "the plans that export the log" }),
  },
  { $id: "ConsoleWho", description: "Who is signed in: the team, the key (never its secret) and the plan." },
);

export const login: Operation = {
  tags,
  summary: "Sign the console in with an API key, or a user's email and password",
  description:
    "Trades a key of the team for a session: the answer sets `relay_console_<port>` (a random token; HttpOnly, SameSite=Strict, Path=/console, Secure over https, 12 hours). The store keeps the token's hash, the team, the key's id and the expiry; every console request re-checks the key, so revoking it ends the session at once. With `email` and `password` instead (an account: POST /v1/accounts/signup), the session keeps an access token made for it (throttled like POST /v1/accounts/signin; the user's role stands for the key type). Must come from the console's own page (its Origin).",
  requestBody: jsonRequestBody(T.Union([T.Object({ api_key: T.String({ pattern: "^rk_live_" }) }), T.Object({ email: T.String(), password: T.String() })])),
  responses: {
    200: jsonResponse("Signed in: the response carries Set-Cookie", Who),
    ...errorResponses("spec", {
      400: "api_key, or email or password, missing or invalid (details.parameter)",
      401: "the key is unknown or revoked (invalid_api_key); the email or password is wrong (invalid_credentials)",
      403: REFUSALS[403],
      429: "too many failed sign-ins for this email or overall (too_many_attempts); Retry-After is set",
    }),
  },
};

export const logout: Operation = {
  tags,
  summary: "Sign the console out",
  description: "Deletes the session and clears its cookie.",
  responses: { 204: { description: "Signed out" }, ...errorResponses("spec", { 403: REFUSALS[403] }) },
};

export const asset = (assets: Readonly<Record<string, { contentType: string }>>): Operation => ({
  tags,
  summary: "A console script, stylesheet or icon (embedded in the binary)",
  parameters: [pathParameter("name", T.Union(Object.keys(assets).map((n) => T.Literal(n))), "the file")],
  responses: {
    200: { description: "The file, with an ETag", content: Object.fromEntries(Object.values(assets).map((a) => [a.contentType, { schema: { type: "string" } }])) },
    304: { description: "Not modified (If-None-Match matched)" },
    ...errorResponses("spec", { 404: "No such asset" }),
  },
});

export const me = viaSession({ summary: "Who is signed in", responses: { 200: jsonResponse("The team, key and plan", Who) } });

export const agents = fromHostedRoute(agentDocs.discover, false);
export const listKeys = fromHostedRoute(keyDocs.listKeys, false);
export const createKey = fromHostedRoute(keyDocs.createKey, true);
export const rotateKey = fromHostedRoute(keyDocs.rotateKey, true);
export const revokeKey = fromHostedRoute(keyDocs.revokeKey, true);
/** The Runs page's list and a run's steps: GET /api/v1/webhooks/runs and GET /v1/debug/runs/:runId with the session. */
export const runs = fromHostedRoute(workflowDocs.runs, false);
export const run = fromHostedRoute(workflowDocs.debugRun, false);

/** A log route of the hosted API as the console serves it: on every plan. */
const everyPlan = (op: Operation, description: string): Operation => {
  const { 403: _plan, ...responses } = op.responses ?? {};
  return fromHostedRoute({ ...op, description, responses }, false);
};

export const logs = everyPlan(logDocs.listLogs, "The team's requests, newest first, filtered as GET /api/logs filters them; on every plan.");
export const log = everyPlan(logDocs.getLog, "One request of the team's log with its fallback events and metadata; on every plan. Another team's request is as unknown as a missing one.");
export const exportLogs = fromHostedRoute(logDocs.exportLogs, false);

export const usage = viaSession({
  summary: "The team's usage over a window",
  description: "Requests, errors, fallbacks, tokens and estimated cost over since..until (default: the last day up to now), overall and per model; on every plan.",
  parameters: logDocs.usage.parameters!.filter((p) => !("name" in p && p.name === "x-api-key")),
  responses: { 200: logDocs.usage.responses![200]!, ...errorResponses("spec", { 400: "since or until is not an ISO 8601 date or date-time, or until is before since (details.parameter)" }) },
});
