// OpenAPI operations of the team's request log (src/surfaces/cloud/logs.ts): the log API and usage
// on the pro plan, the export on maker and pro. Read-only keys are accepted on each.
import { Type as T } from "@sinclair/typebox";
import { type Operation, asSchema, errorResponses, jsonResponse, pathParameter, queryParameter } from "./common.ts";
import { guarded } from "./cloud-keys.ts";

const Tokens = T.Object({ input: T.Integer(), output: T.Integer(), cache_read: T.Integer(), cache_write: T.Integer() });
const Usd = T.Number({ description: "US dollars, estimated from the model's list price" });

export const LogRecord = T.Object(
  {
    id: T.String({ pattern: "^req_", description: "the request id (the relay's x-svc-request-id)" }),
    relay_id: T.Union([T.String({ pattern: "^evt_rel_" }), T.Null()], { description: "the relay's id, when the run came from POST /api/relay" }),
    timestamp: T.String({ format: "date-time", description: "when the request arrived" }),
    latency_ms: T.Number(),
    model: T.String({ description: "the model that answered (empty when none did)" }),
    requested_model: T.String({ description: "the relay's `to`" }),
    provider: T.String(),
    status: T.Integer({ description: "the status the vendor (or Relay) answered with" }),
    tokens: Tokens,
    estimated_cost_usd: Usd,
    fallback_used: T.Boolean(),
    fallback_events: T.Array(
      T.Object({
        type: T.String({ description: "error (a model failed), fallback (the next model was tried) or escalation" }),
        model: T.String(),
        provider: T.String(),
        status: T.Optional(T.Integer()),
        reason: T.Optional(T.String()),
      }),
    ),
    metadata: T.Object({}, { additionalProperties: true, description: "the relay's metadata, as sent" }),
    stream: T.Boolean(),
  },
  { $id: "LogRecord", description: "One request of the team's log (spec §2.7)." },
);

export const LogPage = T.Object({ data: T.Array(LogRecord), total: T.Integer({ description: "requests matching the filters" }), limit: T.Integer(), offset: T.Integer() }, { $id: "LogPage" });

export const TeamUsage = T.Object(
  {
    since: T.String({ format: "date-time" }),
    until: T.String({ format: "date-time" }),
    requests: T.Integer(),
    errors: T.Integer(),
    fallbacks: T.Integer(),
    tokens: Tokens,
    estimated_cost_usd: Usd,
    by_model: T.Array(T.Object({ model: T.String(), provider: T.String(), requests: T.Integer(), estimated_cost_usd: Usd, tokens: Tokens })),
  },
  { $id: "TeamUsage", description: "The team's totals over the window, overall and per model that answered." },
);

const iso = (what: string) => T.String({ format: "date-time", description: `${what}: an ISO 8601 date (UTC midnight) or date-time with a time zone` });
const since = queryParameter("since", iso("requests at or after it"));
const until = queryParameter("until", iso("requests at or before it"));
const filters = [
  since,
  until,
  queryParameter("model", T.String({ maxLength: 256 }), "requests the model answered"),
  queryParameter("status", T.Integer({ minimum: 100, maximum: 599 }), "requests answered with this status"),
];
const page = [
  queryParameter("limit", T.Integer({ minimum: 1, default: 50 }), "page size; above 100 counts as 100; echoed"),
  queryParameter("offset", T.Integer({ minimum: 0, default: 0 }), "requests to skip; echoed"),
];

const PLAN_403 = "the team's plan lacks the feature (plan_upgrade_required; the message names the plans that have it)";
const INVALID = "a query parameter is invalid (details.parameter names it, details.expected its type)";

export const listLogs = guarded(
  {
    summary: "The team's request log",
    description: "The team's requests, newest first, filtered. Pro plan.",
    parameters: [...page, ...filters],
    responses: { 200: jsonResponse("A page of the log", LogPage), ...errorResponses("spec", { 400: INVALID, 403: PLAN_403 }) },
  },
  true,
);

export const getLog = guarded(
  {
    summary: "One request of the team's log",
    description: "Pro plan. Another team's request is as unknown as a missing one.",
    parameters: [pathParameter("id", T.String({ pattern: "^req_" }), "the request id")],
    responses: { 200: jsonResponse("The request", LogRecord), ...errorResponses("spec", { 403: PLAN_403, 404: "no such request in the team's log (not_found)" }) },
  },
  true,
);

export const usage = guarded(
  {
    summary: "The team's usage",
    description: "Totals over since..until (default: the last 30 days up to now); since is raised to the oldest request the plan keeps. Pro plan.",
    parameters: [since, until],
    responses: { 200: jsonResponse("The totals", TeamUsage), ...errorResponses("spec", { 400: INVALID, 403: PLAN_403 }) },
  },
  true,
);

const EXPORT_HEADERS = {
  "content-disposition": { description: "attachment; filename=\"relay-logs-<team>-<day>.<format>\"", schema: { type: "string" } },
  "x-total-count": { description: "requests matching the filters", schema: { type: "integer" } },
};

/** The guard's rate-limit headers on the 200, and the export's own beside them. */
function withExportHeaders(op: Operation): Operation {
  const ok = op.responses![200] as { description: string; headers?: object };
  return { ...op, responses: { ...op.responses, 200: { ...ok, headers: { ...ok.headers, ...EXPORT_HEADERS } as never } } };
}

export const exportLogs = withExportHeaders(guarded(
  {
    summary: "Export the team's request log",
    description:
      "The filtered log as an attachment, newest first, at most 10,000 requests from offset (x-total-count says how many matched). CSV: a header row, one request a row, fallback_events and metadata as JSON text; a cell that would start a spreadsheet formula (= + - @ tab CR) is prefixed with '. JSON: an array of LogRecord. Maker and pro plans.",
    parameters: [queryParameter("format", T.Union([T.Literal("csv"), T.Literal("json")], { default: "csv" })), queryParameter("offset", T.Integer({ minimum: 0, default: 0 })), ...filters],
    responses: {
      200: {
        description: "The export",
        content: { "text/csv": { schema: asSchema({ type: "string" }) }, "application/json": { schema: asSchema(T.Array(LogRecord)) } },
      },
      ...errorResponses("spec", { 400: INVALID, 403: PLAN_403 }),
    },
  },
  true,
));
