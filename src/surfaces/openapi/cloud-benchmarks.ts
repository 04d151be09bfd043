// OpenAPI operations of the hosted API's benchmarks (src/surfaces/cloud/benchmarks.ts).
import { Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, jsonRequestBody, jsonResponse, pathParameter, queryParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const Nullable = <S extends ReturnType<typeof T.Number>>(s: S) => T.Union([s, T.Null()]);

const Prompt = T.Object(
  {
    id: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description: "unique in the set" }),
    prompt: T.String({ maxLength: 8000, description: "the user message" }),
    system: T.Optional(T.String({ maxLength: 4000 })),
    expected: T.Optional(T.String({ maxLength: 500, description: "the expected answer: the prompt is scored 1 or 0 by `match`" })),
    match: T.Optional(
      T.Union([T.Literal("exact"), T.Literal("contains"), T.Literal("regex")], {
        description:
          "exact: the trimmed answer is `expected`; contains (the default): the answer contains `expected`, in any case; regex: `expected`, a JavaScript regular expression without nested quantified groups, matches the answer's first 2,000 characters",
      }),
    ),
  },
  { $id: "BenchmarkPrompt" },
);

const UploadedSet = T.Object(
  { name: T.Optional(T.String({ description: "default `uploaded`; not a shipped set's name" })), prompts: T.Array(Prompt, { minItems: 1, maxItems: 50 }) },
  { $id: "BenchmarkPromptSet" },
);

const NewRun = T.Object(
  {
    models: T.Array(T.String(), { minItems: 1, maxItems: 5, description: "catalog models, each called on every prompt" }),
    prompt_set: T.Union([T.String({ description: "a shipped set: `basics`" }), UploadedSet]),
    spend_cap_usd: T.Optional(T.Number({ exclusiveMinimum: 0, description: "default 1 (or the plan's highest cap when lower); at most the plan's highest cap: free 1, maker 10, pro 100" })),
    max_tokens: T.Optional(T.Integer({ minimum: 1, maximum: 4096, description: "each call's max_tokens; default 256" })),
  },
  { $id: "NewBenchmarkRun" },
);

const Summary = {
  calls: T.Integer(),
  successes: T.Integer(),
  success_rate: T.Number({ description: "successes / calls (0 without calls)" }),
  latency_ms: T.Object({ mean: Nullable(T.Number()), p50: Nullable(T.Number()), p95: Nullable(T.Number()) }, { description: "over the calls that succeeded; nearest-rank percentiles" }),
  cost_usd: T.Object({ total: T.Number(), per_call: T.Number() }),
  score: Nullable(T.Number({ description: "the mean score of the scored calls (a failed call scores 0); null when none was scored" })),
  scored: T.Integer(),
};

const Run = T.Object(
  {
    id: T.String({ pattern: "^bench_" }),
    object: T.Literal("benchmark_run"),
    status: T.Union([T.Literal("queued"), T.Literal("running"), T.Literal("succeeded"), T.Literal("failed"), T.Literal("stopped")], {
      description: "stopped: the spend cap was reached (reason says by what); failed: the run could not go on (reason says why)",
    }),
    reason: T.Union([T.String(), T.Null()]),
    models: T.Array(T.String()),
    prompt_set: T.Object({ name: T.String(), shipped: T.Boolean(), prompts: T.Integer() }),
    max_tokens: T.Integer(),
    spend_cap_usd: T.Number(),
    spent_usd: T.Number({ description: "what the run's recorded calls cost" }),
    calls_planned: T.Integer({ description: "models × prompts" }),
    created_at: Iso,
    started_at: T.Union([Iso, T.Null()]),
    finished_at: T.Union([Iso, T.Null()]),
  },
  { $id: "BenchmarkRun" },
);

const Result = T.Object(
  {
    model: T.String(),
    prompt_id: T.String(),
    request_id: T.String({ description: "the call in the team's request log" }),
    at: Iso,
    success: T.Boolean(),
    status: T.Integer(),
    error: T.Union([T.String(), T.Null()]),
    latency_ms: T.Number(),
    cost_usd: T.Number(),
    tokens: T.Object({ input: T.Integer(), output: T.Integer() }),
    score: Nullable(T.Number()),
    output: T.String({ description: "the answer's first 2,000 characters" }),
  },
  { $id: "BenchmarkResult" },
);

const RunDetail = T.Intersect([Run, T.Object({ calls_done: T.Integer(), summary: T.Array(T.Object({ model: T.String(), ...Summary })), results: T.Array(Result) })]);
const paging = [queryParameter("limit", T.Integer({ minimum: 1, maximum: 100 }), "default 50"), queryParameter("offset", T.Integer({ minimum: 0 }), "default 0")];

export const runBenchmark = guarded(
  {
    summary: "Run a benchmark",
    description:
      "Queues a run of every model on every prompt of the set, made in the background through the router as the team (its request log, budgets and stored provider keys), two calls at a time, prompt by prompt. " +
      "Before each call its estimate (the catalog's price for its input and its whole max_tokens) is held against the spend cap; a call that cannot fit stops the run (status stopped). " +
      "The spend passes the cap only when a vendor bills past the estimate. Poll GET /api/v1/benchmarks/{id} for the results. Takes an Idempotency-Key.",
    requestBody: jsonRequestBody(NewRun),
    responses: {
      202: jsonResponse("The run, queued", T.Object({ benchmark: Run })),
      ...errorResponses("spec", { 400: "a field is invalid (details.parameter names it, as prompt_set.prompts[2].expected)", 413: "body over 256 KB (request_too_large)" }),
    },
  },
  false,
);

export const listBenchmarks = guarded(
  {
    summary: "The team's benchmark runs",
    description: "Newest first.",
    parameters: paging,
    responses: {
      200: jsonResponse("A page of runs", T.Object({ data: T.Array(Run), total: T.Integer(), limit: T.Integer(), offset: T.Integer() })),
      ...errorResponses("spec", { 400: "limit or offset invalid (details.parameter names it)" }),
    },
  },
  true,
);

export const getBenchmark = guarded(
  {
    summary: "A benchmark run with its results",
    description: "The run, each model's summary and every recorded call, model by model in the set's prompt order.",
    parameters: [pathParameter("id", T.String({ pattern: "^bench_" }), "the run's id")],
    responses: { 200: jsonResponse("The run", T.Object({ benchmark: RunDetail })), ...errorResponses("spec", { 404: "no such run in this team (not_found)" }) },
  },
  true,
);

export const history = guarded(
  {
    summary: "A model's benchmark history",
    description: "The team's runs that called the model, newest first, each with the summary of that model's calls in it.",
    parameters: [pathParameter("model", T.String(), "the model as the runs named it"), ...paging],
    responses: {
      200: jsonResponse(
        "A page of the model's runs",
        T.Object({
          model: T.String(),
          data: T.Array(T.Object({ run_id: T.String(), prompt_set: T.String(), status: T.String(), created_at: Iso, ...Summary })),
          total: T.Integer(),
          limit: T.Integer(),
          offset: T.Integer(),
        }),
      ),
      ...errorResponses("spec", { 400: "limit or offset invalid (details.parameter names it)" }),
    },
  },
  true,
);

export const comparison = guarded(
  {
    summary: "Compare models on the team's benchmarks",
    description: "Each model's summary over its latest 10,000 benchmark calls of the team, of every set or of the one named.",
    parameters: [queryParameter("models", T.String(), "1 to 10 models, separated by commas (required)"), queryParameter("set", T.String(), "only runs of this prompt set")],
    responses: {
      200: jsonResponse("Each model's summary", T.Object({ prompt_set: T.Union([T.String(), T.Null()]), models: T.Array(T.Object({ model: T.String(), ...Summary })) })),
      ...errorResponses("spec", { 400: "models missing or invalid, or set invalid (details.parameter names it)" }),
    },
  },
  true,
);
