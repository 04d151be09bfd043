// OpenAPI operations of the cloud's telemetry and mesh routes (src/surfaces/cloud/telemetry.ts).
import { Type as T } from "@sinclair/typebox";
import { Days, Limit, Offset, RunsPage, Savings, TelemetryStats } from "../schemas.ts";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, jsonRequestBody, jsonResponse, queryParameter } from "./common.ts";

const tags = ["mesh"];
const BatchId = T.String({ pattern: "^[A-Za-z0-9._:-]{8,128}$", description: "the sender's id of this batch; a batch re-sent with the same id is stored once" });
const Bucket = T.String({ pattern: "^(?:(?:simple|moderate|complex|none)\\.(?:xs|s|m|l)|unknown)$", description: "coarse request features: `<tier|none>.<band>`, band by input tokens xs <1k, s <8k, m <32k, l" });
const Name = T.String({ pattern: "^[A-Za-z0-9._:/@-]{1,128}$" });
const Tier = T.Union([T.Literal("simple"), T.Literal("moderate"), T.Literal("complex")]);

const Outcome = T.Object(
  {
    ts: T.Union([T.Integer({ minimum: 0 }), T.String({ format: "date-time" })], { description: "when the request started: ms since the epoch or ISO 8601" }),
    model: Name,
    provider: Name,
    tier: T.Optional(Tier),
    bucket: Bucket,
    class: T.Union(["ok", "rate_limited", "server_error", "timeout", "client_error", "cancelled"].map((c) => T.Literal(c)), {
      description: "rate_limited, server_error and timeout count against the model; client_error and cancelled do not",
    }),
    latency_ms: T.Number({ minimum: 0 }),
    cost_usd: T.Optional(T.Number({ minimum: 0 })),
    escalations: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
  },
  { $id: "MeshOutcome", description: "One anonymised routing outcome: names and numbers only, never text." },
);

const LogEvent = T.Object({
  type: T.Union(["attempt", "fallback", "escalation", "error"].map((c) => T.Literal(c))),
  model: Name,
  provider: Name,
  status: T.Optional(T.Integer({ minimum: 100, maximum: 599 })),
  reason: T.Optional(T.String({ maxLength: 500 })),
});

const UploadedRun = T.Object(
  {
    id: Name,
    timestamp: T.Union([T.String({ format: "date-time" }), T.Integer({ minimum: 0 })]),
    latency_ms: T.Number({ minimum: 0 }),
    model: Name,
    requested_model: T.Optional(Name),
    provider: Name,
    tier: T.Optional(Tier),
    status: T.Integer({ minimum: 100, maximum: 599 }),
    tokens: T.Object({ input: T.Integer({ minimum: 0 }), output: T.Integer({ minimum: 0 }), cache_read: T.Optional(T.Integer({ minimum: 0 })), cache_write: T.Optional(T.Integer({ minimum: 0 })) }),
    estimated_cost_usd: T.Optional(T.Number({ minimum: 0 })),
    fallback_used: T.Optional(T.Boolean()),
    fallback_events: T.Optional(T.Array(LogEvent, { maxItems: 50 })),
    metadata: T.Optional(T.Record(T.String(), T.Unknown(), { description: "the caller's metadata, at most 8 KB serialised; svc_* keys are dropped" })),
    stream: T.Optional(T.Boolean()),
  },
  { $id: "UploadedRun", description: "A run record (spec §2.7) in the hosted log's shape (GET /api/logs); it holds no prompt or answer text." },
);

const Accepted = T.Object(
  { batch_id: BatchId, accepted: T.Integer({ description: "items stored by this call; 0 for a duplicate" }), duplicate: T.Boolean({ description: "the batch id was received before: nothing was stored again" }) },
  { $id: "BatchAccepted" },
);

const ModelRow = T.Object({
  model: T.String(),
  provider: T.String(),
  bucket: T.String(),
  requests: T.Integer(),
  errors: T.Integer({ description: "outcomes of a failing class" }),
  success_rate: T.Number(),
  latency_avg_ms: T.Number(),
  cost_usd: T.Number(),
  escalations: T.Integer(),
});
const Scope = T.Object({ batches: T.Integer(), items: T.Integer(), last_received_at: T.Union([T.String({ format: "date-time" }), T.Null()]), models: T.Array(ModelRow) });

const BATCH = "At most 1,000 items per batch. A batch id already received by this team is answered 200 with duplicate true and stores nothing again.";

export const outcomes = guarded(
  {
    tags,
    summary: "Report mesh outcomes",
    description: `A proxy's anonymised routing outcomes (mesh.enabled): model, provider, tier, coarse bucket, class, latency, cost, escalations. Names and buckets must match their patterns, so no text can be sent. ${BATCH}`,
    requestBody: jsonRequestBody(T.Object({ batch_id: BatchId, outcomes: T.Array(Outcome, { minItems: 1, maxItems: 1000 }) })),
    responses: { 200: jsonResponse("The batch, stored or recognised", Accepted), ...errorResponses("spec", { 400: "a field is invalid (details.parameter names it)", 413: "body over 1 MB (request_too_large)" }) },
  },
  false,
);

export const logs = guarded(
  {
    tags,
    summary: "Upload run records",
    description: `Run records (spec §2.7) from the SDK or a proxy, stored as the team's runs: GET /api/logs, /api/usage and /v1/telemetry/stats|runs|savings show them, and their anonymised outcomes feed the mesh. A record whose id is already stored is kept as it was. ${BATCH}`,
    requestBody: jsonRequestBody(T.Object({ batch_id: BatchId, runs: T.Array(UploadedRun, { minItems: 1, maxItems: 1000 }) })),
    responses: { 200: jsonResponse("The batch, stored or recognised", Accepted), ...errorResponses("spec", { 400: "a field is invalid (details.parameter names it)", 413: "body over 4 MB (request_too_large)" }) },
  },
  false,
);

const badQuery = errorResponses("spec", { 400: "A query parameter is out of bounds (details.parameter names it)" });

export const stats = guarded(
  { tags, summary: "The team's traffic", description: "The proxy's GET /v1/telemetry/stats over the team's runs.", parameters: [queryParameter("days", Days)], responses: { 200: jsonResponse("Statistics of the window", TelemetryStats), ...badQuery } },
  true,
);

export const runs = guarded(
  { tags, summary: "The team's runs", description: "The proxy's GET /v1/telemetry/runs over the team's runs, newest first.", parameters: [queryParameter("limit", Limit), queryParameter("offset", Offset)], responses: { 200: jsonResponse("One page", RunsPage), ...badQuery } },
  true,
);

export const savings = guarded(
  { tags, summary: "The team's savings", description: "The proxy's GET /v1/telemetry/savings over the team's runs.", parameters: [queryParameter("days", Days)], responses: { 200: jsonResponse("Savings of the window", Savings), ...badQuery } },
  true,
);

export const health = guarded(
  {
    tags,
    summary: "Provider health across reports",
    description: "Each provider's reported outcomes over the last 24 hours, across every team: unknown under 5 outcomes, healthy at 90% success or more, else degraded.",
    responses: {
      200: jsonResponse(
        "Each reported provider",
        T.Object({
          window: T.Literal("24h"),
          since: T.String({ format: "date-time" }),
          providers: T.Array(T.Object({ provider: T.String(), state: T.Union([T.Literal("healthy"), T.Literal("degraded"), T.Literal("unknown")]), requests: T.Integer(), errors: T.Integer(), successRate: T.Union([T.Number(), T.Null()]) })),
        }),
      ),
    },
  },
  true,
);

export const status = guarded(
  {
    tags,
    summary: "Mesh status",
    description: "What the team reported over the last 24 hours and what every team did, per model, provider and bucket (counts only; no team is named). Proxies pull it on each mesh sync.",
    responses: { 200: jsonResponse("The team's and the global aggregates", T.Object({ window: T.Literal("24h"), since: T.String({ format: "date-time" }), min_requests: T.Integer(), team: Scope, global: Scope })) },
  },
  true,
);

export const route = guarded(
  {
    tags,
    summary: "Recommend a model",
    description: "The cheapest model (by catalog price) with 5 or more reported outcomes in the request's bucket whose success rate meets min_success_rate (default 0.9); model is null when none does.",
    requestBody: jsonRequestBody(
      T.Object({
        bucket: T.Optional(Bucket),
        tier: T.Optional(Tier),
        input_tokens: T.Optional(T.Integer({ minimum: 0, description: "with tier, makes the bucket when bucket is not given" })),
        min_success_rate: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
        candidates: T.Optional(T.Array(T.String({ maxLength: 200 }), { maxItems: 100, description: "only these models (model or provider:model)" })),
      }),
    ),
    responses: {
      200: jsonResponse("The recommendation", T.Object({ bucket: T.String(), min_success_rate: T.Number(), model: T.Union([T.String(), T.Null()]), reason: T.String(), alternatives: T.Array(T.String()) })),
      ...errorResponses("spec", { 400: "a field is invalid, or neither bucket nor tier and input_tokens is given", 413: "body over 64 KB (request_too_large)" }),
    },
  },
  false,
);
