// TypeBox schemas of what the HTTP surfaces accept and answer. The routes
// validate by hand (the proxy must pass unknown vendor fields through), so
// these describe rather than enforce: the OpenAPI document is built from them
// and tests/docs/openapi.test.ts checks real answers against them. Every
// schema with an `$id` becomes a named entry of the document's components.
import { type TSchema, Type as T } from "@sinclair/typebox";
import { ConfigSchema } from "../config/schema.ts";

const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);
/** An object that may carry more fields than listed (vendor bodies grow). */
const Open = T.Object({}, { additionalProperties: true });
const Usd = T.Number({ description: "US dollars" });
const Iso = T.String({ format: "date-time" });

// ---- errors (spec §2.6; the proxy answers in its client's own format) ----

export const ErrorDetails = T.Object(
  {
    parameter: T.String({ description: "the offending parameter" }),
    provided: T.Optional(T.Unknown()),
    expected: T.String({ description: "what was expected, as a type name" }),
  },
  { $id: "ErrorDetails" },
);

const RequestId = T.String({ pattern: "^req_", description: "also sent as the x-svc-request-id header" });
const Suggestions = T.Optional(T.Array(T.String(), { description: "similar model names, when the model was not found" }));

export const SpecError = T.Object(
  {
    error: T.Object({ code: T.String({ examples: ["invalid_request"] }), message: T.String(), details: T.Optional(ErrorDetails) }),
    suggestions: Suggestions,
    request_id: RequestId,
  },
  { $id: "Error", description: "The error body of every non-model route (spec §2.6)." },
);

export const AnthropicError = T.Object(
  {
    type: T.Literal("error"),
    error: T.Object({
      type: T.String({ examples: ["invalid_request_error"], description: "the Anthropic error type" }),
      message: T.String(),
      code: T.String({ description: "Relay's error code" }),
      details: T.Optional(ErrorDetails),
    }),
    suggestions: Suggestions,
    request_id: RequestId,
  },
  { $id: "AnthropicError", description: "Errors of /v1/messages*, shaped like Anthropic's so its SDKs parse them." },
);

export const OpenAIError = T.Object(
  {
    error: T.Object({
      code: T.String(),
      message: T.String(),
      type: T.String({ examples: ["invalid_request_error"] }),
      param: Nullable(T.String()),
      details: T.Optional(ErrorDetails),
    }),
    suggestions: Suggestions,
    request_id: RequestId,
  },
  { $id: "OpenAIError", description: "Errors of the chat-completions and model-list routes, shaped like OpenAI's." },
);

export const GeminiError = T.Object(
  {
    error: T.Object({
      code: T.Integer({ examples: [400], description: "the HTTP status" }),
      message: T.String(),
      status: T.String({ examples: ["INVALID_ARGUMENT"], description: "Google's canonical status name" }),
      details: T.Array(Open, { description: "a google.rpc.ErrorInfo whose reason is Relay's error code" }),
    }),
    suggestions: Suggestions,
    request_id: RequestId,
  },
  { $id: "GeminiError", description: "Errors of Gemini's model methods (/v1beta/models/{model}:…), shaped like Google's so its SDKs parse them." },
);

// ---- proxy: Anthropic messages ----

const AnthropicMessage = T.Object(
  {
    role: T.Union([T.Literal("user"), T.Literal("assistant")]),
    content: T.Union([T.String(), T.Array(T.Object({ type: T.String() }, { additionalProperties: true }))]),
  },
  { $id: "AnthropicMessage" },
);

const AnthropicPromptFields = {
  model: T.String({ description: "a model id, alias or virtual model such as svc:auto", examples: ["claude-haiku-4-5"] }),
  messages: T.Array(AnthropicMessage),
  system: T.Optional(T.Union([T.String(), T.Array(Open)])),
  tools: T.Optional(T.Array(Open)),
  tool_choice: T.Optional(Open),
  thinking: T.Optional(Open),
};

export const AnthropicMessagesRequest = T.Object(
  {
    ...AnthropicPromptFields,
    max_tokens: T.Integer({ minimum: 1 }),
    stream: T.Optional(T.Boolean()),
    temperature: T.Optional(T.Number()),
    top_p: T.Optional(T.Number()),
    top_k: T.Optional(T.Integer()),
    stop_sequences: T.Optional(T.Array(T.String())),
    metadata: T.Optional(Open),
  },
  { $id: "AnthropicMessagesRequest", additionalProperties: true, description: "Anthropic Messages API request; other fields are passed through." },
);

export const AnthropicMessagesResponse = T.Object(
  {
    id: T.String(),
    type: T.Literal("message"),
    role: T.Literal("assistant"),
    model: T.String(),
    content: T.Array(T.Object({ type: T.String() }, { additionalProperties: true })),
    stop_reason: Nullable(T.String()),
    stop_sequence: T.Optional(Nullable(T.String())),
    usage: T.Object(
      {
        input_tokens: T.Integer(),
        output_tokens: T.Integer(),
        cache_creation_input_tokens: T.Optional(Nullable(T.Integer())),
        cache_read_input_tokens: T.Optional(Nullable(T.Integer())),
      },
      { additionalProperties: true },
    ),
  },
  { $id: "AnthropicMessagesResponse", additionalProperties: true },
);

export const CountTokensRequest = T.Object(AnthropicPromptFields, {
  $id: "CountTokensRequest",
  additionalProperties: true,
  description: "A Messages request without max_tokens.",
});

export const CountTokensResponse = T.Object({ input_tokens: T.Integer({ minimum: 0 }) }, { $id: "CountTokensResponse" });

// ---- proxy: OpenAI chat completions ----

const ChatMessage = T.Object(
  {
    role: T.Union(["system", "developer", "user", "assistant", "tool"].map((r) => T.Literal(r))),
    content: T.Optional(Nullable(T.Union([T.String(), T.Array(Open)]))),
    name: T.Optional(T.String()),
    tool_calls: T.Optional(T.Array(Open)),
    tool_call_id: T.Optional(T.String()),
  },
  { $id: "ChatMessage", additionalProperties: true },
);

export const ChatCompletionRequest = T.Object(
  {
    model: T.String({ description: "any catalog model of any provider, an alias, or a virtual model such as svc:auto", examples: ["gpt-4o-mini"] }),
    messages: T.Array(ChatMessage),
    stream: T.Optional(T.Boolean()),
    stream_options: T.Optional(T.Object({ include_usage: T.Optional(T.Boolean()) })),
    max_tokens: T.Optional(T.Integer({ minimum: 1 })),
    max_completion_tokens: T.Optional(T.Integer({ minimum: 1 })),
    temperature: T.Optional(T.Number()),
    top_p: T.Optional(T.Number()),
    stop: T.Optional(T.Union([T.String(), T.Array(T.String())])),
    tools: T.Optional(T.Array(Open)),
    tool_choice: T.Optional(T.Union([T.String(), Open])),
    response_format: T.Optional(Open),
    reasoning_effort: T.Optional(T.String()),
    user: T.Optional(T.String()),
  },
  {
    $id: "ChatCompletionRequest",
    additionalProperties: true,
    description: "OpenAI Chat Completions request. Fields a routed provider cannot honour are dropped and named in x-svc-dropped-params.",
  },
);

export const ChatCompletionResponse = T.Object(
  {
    id: T.String(),
    object: T.Literal("chat.completion"),
    created: T.Integer(),
    model: T.String(),
    choices: T.Array(
      T.Object(
        {
          index: T.Integer(),
          message: T.Object({ role: T.Literal("assistant"), content: Nullable(T.String()), tool_calls: T.Optional(T.Array(Open)) }, { additionalProperties: true }),
          finish_reason: Nullable(T.String()),
        },
        { additionalProperties: true },
      ),
    ),
    usage: T.Optional(T.Object({ prompt_tokens: T.Integer(), completion_tokens: T.Integer(), total_tokens: T.Integer() }, { additionalProperties: true })),
  },
  { $id: "ChatCompletionResponse", additionalProperties: true },
);

// ---- proxy: models and health ----

const Price = T.Object(
  { input: T.Number(), output: T.Number(), cacheRead: T.Optional(T.Number()), cacheWrite: T.Optional(T.Number()) },
  { description: "USD per million tokens" },
);

const VirtualModel = T.Object(
  { id: T.String(), object: T.Literal("model"), created: T.Integer(), owned_by: T.Literal("relay"), strategy: T.String(), description: T.Optional(T.String()) },
  { $id: "VirtualModel", description: "A routing strategy offered as a model, e.g. svc:auto." },
);

const CatalogModel = T.Object(
  {
    id: T.String(),
    object: T.Literal("model"),
    created: T.Integer(),
    owned_by: T.String({ description: "the provider" }),
    aliases: T.Array(T.String()),
    context_window: T.Optional(T.Integer()),
    max_output_tokens: T.Optional(T.Integer()),
    pricing: T.Optional(Price),
    capabilities: T.Object({ tools: T.Boolean(), vision: T.Boolean(), json: T.Boolean(), reasoning: T.Boolean(), streaming: T.Boolean() }),
    tier: T.Optional(T.Union([T.Literal("simple"), T.Literal("moderate"), T.Literal("complex")])),
  },
  { $id: "CatalogModel" },
);

export const ModelList = T.Object(
  { object: T.Literal("list"), data: T.Array(T.Union([VirtualModel, CatalogModel])) },
  { $id: "ModelList", description: "OpenAI-style list: virtual models first, then the routable catalog models of providers with credentials (every one with ?all=true)." },
);

export const AnthropicModelList = T.Object(
  {
    data: T.Array(T.Object({ id: T.String(), type: T.Literal("model"), display_name: T.String(), created_at: Iso })),
    has_more: T.Boolean(),
    first_id: Nullable(T.String()),
    last_id: Nullable(T.String()),
  },
  { $id: "AnthropicModelList", description: "Anthropic-style list (request sent with anthropic-version): virtual models, and Anthropic models when Relay or the request has an Anthropic credential (every one with ?all=true)." },
);

export const Health = T.Object(
  {
    status: T.Literal("ok"),
    version: T.String(),
    uptime: T.Integer({ description: "seconds" }),
    routing: T.Union([T.Literal("enabled"), T.Literal("disabled")]),
    store: T.Union([T.Literal("sqlite"), T.Literal("postgres")]),
    plugins: T.Object({ loaded: T.Integer(), failed: T.Integer() }),
  },
  { $id: "Health" },
);

export const HostedHealth = T.Object(
  {
    status: T.Union([T.Literal("ok"), T.Literal("degraded")]),
    timestamp: Iso,
    version: T.String({ description: "semantic version, e.g. 1.2.0" }),
    uptime: T.Integer({ minimum: 0, description: "whole seconds since the process started" }),
    services: T.Object({
      database: T.String({ examples: ["healthy", "unreachable", "integrity_failed"] }),
      cache: T.String({ examples: ["healthy", "unreachable", "unhealthy"] }),
      ai_providers: T.String({ examples: ["healthy", "no_credentials", "all_cooled_down"] }),
    }),
  },
  { $id: "HostedHealth", description: "Spec §2.5. `healthy` when fine; otherwise a reason (see the operation)." },
);

// ---- shared by control, telemetry and dashboard ----

const totalsFields = {
  requests: T.Integer(),
  errors: T.Integer(),
  inputTokens: T.Integer(),
  outputTokens: T.Integer(),
  cacheReadTokens: T.Integer(),
  cacheWriteTokens: T.Integer(),
  costUsd: Usd,
  fallbacks: T.Integer(),
};
export const RunTotals = T.Object(totalsFields, { $id: "RunTotals" });
export const ModelTotals = T.Object({ model: T.String(), provider: T.String(), ...totalsFields }, { $id: "ModelTotals" });

const BudgetWindow = T.Object({
  window: T.String({ examples: ["2026-11-22T10"] }),
  limitUsd: T.Optional(Usd),
  spentUsd: Usd,
  reservedUsd: Usd,
  resetsInSec: T.Number(),
});
export const BudgetStatus = T.Object({ hourly: BudgetWindow, daily: BudgetWindow }, { $id: "BudgetStatus" });

export const RunRecord = T.Object(
  {
    id: T.String(),
    ts: T.Integer({ description: "start, ms since the epoch" }),
    latencyMs: T.Number(),
    requestedModel: T.String(),
    routedModel: T.String(),
    provider: T.String(),
    strategy: T.String(),
    tier: T.Optional(T.String()),
    status: T.Integer({ description: "HTTP status answered to the client" }),
    outcome: T.Union([T.Literal("ok"), T.Literal("error"), T.Literal("cancelled")]),
    stream: T.Boolean(),
    clientFormat: T.String(),
    inputTokens: T.Integer(),
    outputTokens: T.Integer(),
    cacheReadTokens: T.Integer(),
    cacheWriteTokens: T.Integer(),
    costUsd: Usd,
    fallbackUsed: T.Boolean(),
    attempts: T.Integer(),
    events: T.Array(
      T.Object({
        type: T.Union(["attempt", "fallback", "escalation", "error", "mismatch", "budget_cap", "budget_overshoot", "cost_unknown"].map((t) => T.Literal(t))),
        model: T.String(),
        provider: T.String(),
        status: T.Optional(T.Integer()),
        reason: T.Optional(T.String()),
        latencyMs: T.Optional(T.Number()),
      }),
    ),
    reasons: T.Array(T.String()),
    metadata: Open,
    sessionKey: T.Optional(T.String()),
    error: T.Optional(T.String()),
    overheadMs: T.Number({ description: "the gateway's own time, excluding the vendor's" }),
    teamId: T.Optional(T.String({ description: "the hosted team whose request it was (relay cloud)" })),
  },
  { $id: "RunRecord", description: "One proxied request as logged (spec §2.7)." },
);

const ControlSnapshot = T.Object(
  { routingEnabled: T.Boolean(), killedSessions: T.Array(T.String()), killedAll: T.Boolean(), inflight: T.Integer(), activeSessions: T.Integer() },
  { $id: "ControlSnapshot" },
);

const ProviderHealthRow = T.Object(
  {
    provider: T.String(),
    state: T.Union(["healthy", "degraded", "cooled_down", "no_credentials"].map((s) => T.Literal(s))),
    requests: T.Integer(),
    successRate: Nullable(T.Number()),
    recentFailures: T.Integer(),
    lastError: Nullable(T.String()),
    lastFailureAt: Nullable(Iso),
    cooldownEndsAt: Nullable(Iso),
  },
  { $id: "ProviderHealthRow" },
);

// ---- control ----

export const RoutingSwitch = T.Object({ routing: T.Union([T.Literal("enabled"), T.Literal("disabled")]) }, { $id: "RoutingSwitch" });

export const ControlStatus = T.Composite(
  [
    T.Object({ version: T.String(), uptime: T.Integer({ description: "seconds" }) }),
    ControlSnapshot,
    T.Object({
      providers: T.Array(
        T.Object({
          provider: T.String(),
          credentials: T.Boolean(),
          state: T.Union(["available", "cooled_down", "no_credentials"].map((s) => T.Literal(s))),
          cooldownEndsAt: T.Optional(Iso),
          recentFailures: T.Integer(),
          lastError: T.Optional(T.String()),
        }),
      ),
      plugins: T.Object({
        loaded: T.Array(T.Object({ file: T.String(), kind: T.String(), name: T.String() })),
        failed: T.Array(T.Object({ file: T.String(), error: T.String() })),
      }),
    }),
  ],
  { $id: "ControlStatus" },
);

export const ControlStats = T.Object(
  {
    window: T.Literal("24h"),
    totals: RunTotals,
    budget: BudgetStatus,
    runLog: T.Object({ written: T.Integer(), failed: T.Integer(), dropped: T.Integer(), pending: T.Integer({ description: "records waiting to be written" }) }),
  },
  { $id: "ControlStats" },
);

export const Config = T.Composite(
  [T.Omit(ConfigSchema, ["adminToken"]), T.Object({ adminToken: T.Optional(T.Literal("[redacted]")) })],
  { $id: "Config", description: "The effective configuration; secret-looking fields read [redacted] and URL credentials are stripped." },
);

export const ConfigPatch = T.Object({}, {
  $id: "ConfigPatch",
  additionalProperties: true,
  description: "A JSON merge patch (RFC 7386) of the config file; null deletes a key. The result is validated before it is written or applied.",
  examples: [{ limits: { rpm: { "gpt-4o-mini": 60 } } }],
});

export const ConfigPatchResult = T.Object({ ok: T.Literal(true), config: Config }, { $id: "ConfigPatchResult" });

export const KillRequest = T.Union([T.Object({ sessionKey: T.String({ minLength: 1 }) }), T.Object({ all: T.Literal(true) })], {
  $id: "KillRequest",
  description: "End one session (x-svc-session) or all; their requests are refused until routing is re-enabled.",
});

export const KillResult = T.Object(
  { killed: T.String({ description: "the session key, or all" }), aborted: T.Integer({ description: "in-flight requests aborted" }) },
  { $id: "KillResult" },
);

export const DashboardConfig = T.Object(
  {
    config: Config,
    sources: T.Record(T.String(), T.Union(["default", "file", "env", "flag"].map((l) => T.Literal(l))), { description: "dotted key -> the layer it came from" }),
    file: T.String(),
  },
  { $id: "DashboardConfig" },
);

// ---- telemetry ----

export const Days = T.Integer({ minimum: 1, maximum: 365, default: 7, description: "look-back window in days" });
export const Limit = T.Integer({ minimum: 1, maximum: 1000, default: 50, description: "page size" });
export const Offset = T.Integer({ minimum: 0, default: 0, description: "records to skip, newest first" });

const Latency = T.Object({ p50: Nullable(T.Number()), p95: Nullable(T.Number()), p99: Nullable(T.Number()) }, { description: "milliseconds; null without traffic" });

export const TelemetryStats = T.Composite(
  [
    T.Object({ days: Days, since: Iso }),
    RunTotals,
    T.Object({ successRate: Nullable(T.Number()), latencyMs: Latency, models: T.Array(ModelTotals) }),
  ],
  { $id: "TelemetryStats" },
);

export const RunsPage = T.Object({ runs: T.Array(RunRecord), total: T.Integer(), limit: Limit, offset: Offset }, { $id: "RunsPage" });

export const Savings = T.Object(
  {
    days: Days,
    since: Iso,
    baselineModel: T.String(),
    actualUsd: Usd,
    baselineUsd: Usd,
    savedUsd: Usd,
    savedPercent: T.Number(),
    formula: T.String(),
    models: T.Array(
      T.Object({ model: T.String(), provider: T.String(), requests: T.Integer(), actualUsd: Usd, baselineUsd: Usd, savedUsd: Usd }),
    ),
  },
  { $id: "Savings", description: "Spend against sending everything to telemetry.baselineModel." },
);

export const ProviderHealth = T.Object({ window: T.Literal("1h"), providers: T.Array(ProviderHealthRow) }, { $id: "ProviderHealth" });

// ---- dashboard data ----

export const Range = T.Union(["hour", "day", "7d", "30d"].map((r) => T.Literal(r)), { default: "day", description: "time range" });
export const DashboardLimit = T.Integer({ minimum: 1, maximum: 200, default: 25, description: "page size" });
export const StatusFilter = T.Integer({ minimum: 100, maximum: 599, description: "only runs answered with this HTTP status" });

export const DashboardSummary = T.Object(
  {
    range: Range,
    requests: T.Integer(),
    errors: T.Integer(),
    fallbacks: T.Integer(),
    successRate: Nullable(T.Number()),
    costUsd: Usd,
    latencyMs: T.Object({ p50: Nullable(T.Number()), p95: Nullable(T.Number()) }),
    savings: T.Union([
      T.Object({ baselineModel: T.String(), savedUsd: Usd, savedPercent: T.Number(), baselineUsd: Usd }),
      T.Object({ error: T.String() }),
    ]),
    models: T.Array(T.Object({ model: T.String(), provider: T.String(), requests: T.Integer(), costUsd: Usd })),
  },
  { $id: "DashboardSummary" },
);

export const DashboardSeries = T.Object(
  {
    range: Range,
    bucketMs: T.Integer(),
    points: T.Array(
      T.Object({
        ts: T.Integer({ description: "bucket start, ms since the epoch" }),
        requests: T.Integer(),
        errors: T.Integer(),
        costUsd: Usd,
        latencyAvgMs: Nullable(T.Number()),
        latencyMaxMs: Nullable(T.Number()),
      }),
    ),
  },
  { $id: "DashboardSeries" },
);

export const DashboardRunsPage = T.Object(
  {
    runs: T.Array(
      T.Object({
        ...T.Pick(RunRecord, ["id", "ts", "requestedModel", "routedModel", "provider", "strategy", "status", "outcome", "stream", "latencyMs", "inputTokens", "outputTokens", "costUsd"]).properties,
        sessionKey: Nullable(T.String()),
        costUnknown: T.Boolean({ description: "the model that answered has no listed price: costUsd reads 0 but the cost is unknown" }),
      }),
    ),
    total: T.Integer(),
    limit: DashboardLimit,
    offset: Offset,
  },
  { $id: "DashboardRunsPage" },
);

export const DashboardLive = T.Object(
  {
    now: T.Integer(),
    routing: ControlSnapshot,
    providers: T.Array(ProviderHealthRow),
    budget: BudgetStatus,
    rate: T.Array(T.Object({ model: T.String(), provider: T.String(), limit: T.Integer(), remaining: T.Integer(), resetSec: T.Number() })),
  },
  { $id: "DashboardLive" },
);
