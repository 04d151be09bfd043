// OpenAPI operations of the hosted API's workflows: deploy and list, the run routes and the debug
// routes (src/surfaces/cloud/workflows.ts).
import { type TSchema, Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, jsonRequestBody, jsonResponse, pathParameter, queryParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);

const Step = T.Object(
  {
    name: T.String({ maxLength: 128, description: "unique in the workflow" }),
    model: T.String({ description: "`<vendor>:<model>`, e.g. openai:gpt-4o-mini" }),
    dependsOn: T.Optional(T.Array(T.String(), { description: "steps whose outputs this one needs" })),
    systemPrompt: T.Optional(T.String()),
    userPrompt: T.Optional(T.String({ description: "`{{input.a.b}}` and `{{steps.<name>.output.x}}` are replaced; without it the user message is the input as JSON" })),
    schema: T.Optional(T.Union([T.Object({}, { additionalProperties: true }), T.Boolean()], { description: "JSON Schema the answer must be JSON of" })),
    retry: T.Optional(T.Object({ maxRetries: T.Integer({ minimum: 0, maximum: 10 }), backoffMs: T.Optional(T.Number({ minimum: 0, maximum: 60000 })) })),
    metadata: T.Optional(T.Object({}, { additionalProperties: true })),
  },
  { $id: "WorkflowStep" },
);

const Definition = T.Object({ name: T.String({ maxLength: 128 }), steps: T.Array(Step, { minItems: 1, maxItems: 50 }) }, { $id: "WorkflowDefinition" });

const RateLimit = T.Object({ requests: T.Integer({ minimum: 1, maximum: 1000000 }), window: T.String({ pattern: "^[1-9][0-9]{0,5}[smhd]$", description: "a whole number and a unit: 30s, 1m, 2h, 1d (at most 1d)" }) });

/** Interface §2.10: the deploy body's `trigger` (src/core/workflows/cloud/trigger-config.ts). */
const TriggerConfig = T.Object(
  {
    endpoint: T.String({ maxLength: 256, description: "path under the team's hook address: segments of letters, digits and ._~- separated by /" }),
    method: T.Optional(T.Union([T.Literal("POST"), T.Literal("PUT")], { default: "POST" })),
    headers: T.Optional(T.Record(T.String(), T.String(), { description: "headers a call must carry with these values (at most 20)" })),
    secret: T.Optional(T.String({ minLength: 16, maxLength: 256, description: "signs calls; without signatureHeader a Standard Webhooks secret (whsec_ + base64 of 24 to 64 bytes)" })),
    signatureHeader: T.Optional(T.String({ description: "header of the signature t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>" })),
    rateLimit: T.Optional(RateLimit),
  },
  { $id: "WorkflowTriggerConfig" },
);

const Trigger = T.Object(
  {
    endpoint: T.String(),
    url: T.String({ description: "{hooks_url}/<team>/<endpoint>: cloud.publicUrl (else the address the deploy came in on) + /hooks" }),
    method: T.Union([T.Literal("POST"), T.Literal("PUT")]),
    headers: T.Array(T.String(), { description: "the names of the headers required (values not shown)" }),
    signed: T.Boolean({ description: "whether a secret is set (never shown)" }),
    signatureHeader: Nullable(T.String()),
    rateLimit: Nullable(RateLimit),
  },
  { $id: "WorkflowTrigger" },
);

const Workflow = T.Object(
  { id: T.String({ pattern: "^wf_" }), object: T.Literal("workflow"), name: T.String(), version: T.Integer({ minimum: 1 }), definition: Definition, created_at: Iso },
  { $id: "Workflow" },
);

const Result = T.Object(
  {
    success: T.Boolean(),
    steps: T.Record(T.String(), T.Object({}, { additionalProperties: true }), { description: "each step that started, by name (status, output, model, routedModel, tokens, cost, latency, retries, repaired, prompt, error)" }),
    finalOutput: T.Optional(T.Any({ description: "on success: the sink step's output, or each sink's by name" })),
    error: T.Optional(T.Object({ message: T.String(), stepName: T.Optional(T.String()), cause: T.Optional(T.Any()) })),
    metadata: T.Object({ workflowName: T.String(), startTime: Iso, endTime: Iso, duration: T.Number() }, { additionalProperties: true }),
  },
  { $id: "WorkflowResult", description: "Interface §2.11's WorkflowResult; for a resumed run, startTime is when it was resumed" },
);

export const Run = T.Object(
  {
    id: T.String({ pattern: "^wfr_" }),
    object: T.Literal("workflow_run"),
    workflow: T.String(),
    workflow_id: T.String({ pattern: "^wf_" }),
    version: T.Integer(),
    status: T.Union([T.Literal("queued"), T.Literal("running"), T.Literal("succeeded"), T.Literal("failed")]),
    input: T.Any(),
    result: Nullable(Result),
    created_at: Iso,
    started_at: Nullable(Iso),
    finished_at: Nullable(Iso),
  },
  { $id: "WorkflowRun" },
);

const DebugStep = T.Object({
  name: T.String(),
  status: T.Union([T.Literal("pending"), T.Literal("completed"), T.Literal("failed"), T.Literal("cancelled")]),
  depends_on: T.Array(T.String()),
  input: T.Object({ input: T.Any(), steps: T.Record(T.String(), T.Object({ output: T.Any() })) }, { description: "what the step's templates could read" }),
  prompt: Nullable(T.Object({ system: T.Optional(T.String()), user: T.String() }, { description: "after templating" })),
  model: T.String({ description: "as declared" }),
  routed_model: Nullable(T.String({ description: "`<provider>:<model>` that answered" })),
  output: T.Any(),
  tokens: Nullable(T.Object({ input: T.Integer(), output: T.Integer(), total: T.Integer() })),
  cost_usd: Nullable(T.Number()),
  latency_ms: Nullable(T.Number()),
  retries: Nullable(T.Integer()),
  repaired: Nullable(T.Boolean()),
  error: Nullable(T.Object({ message: T.String(), cause: T.Optional(T.Any()) })),
});

const paging = [queryParameter("limit", T.Integer({ minimum: 1, maximum: 100 }), "default 50"), queryParameter("offset", T.Integer({ minimum: 0 }), "default 0")];
const runPage = jsonResponse("A page of runs, newest first", T.Object({ data: T.Array(Run), total: T.Integer(), limit: T.Integer(), offset: T.Integer() }));
const notFound = { 404: "no such run in this team (not_found)" };

export const deploy = guarded(
  {
    summary: "Deploy a workflow",
    description:
      "Registers the definition as the team's workflow of its name, checked whole first (the dependency graph, each model as `<vendor>:<model>`, retry, schemas, templates). " +
      "Idempotent on the definition: the same one again (in any key order) answers 200 with the version stored; a changed one is the next version (201). Runs trigger the latest version. A `trigger` (interface §2.10) makes the workflow answer at /hooks/<team>/<endpoint> (the answer's trigger.url); it is the workflow's, replaced by each deploy.",
    requestBody: jsonRequestBody(T.Composite([Definition, T.Object({ trigger: T.Optional(TriggerConfig) })], { description: "the definition, and its webhook trigger (without one, the workflow's trigger is removed)" })),
    responses: {
      201: jsonResponse("A new version", T.Object({ workflow: Workflow, created: T.Literal(true), trigger: Nullable(Trigger) })),
      200: jsonResponse("The same definition, deployed already", T.Object({ workflow: Workflow, created: T.Literal(false), trigger: Nullable(Trigger) })),
      ...errorResponses("spec", { 400: "a field is invalid (details.parameter names it, as steps[1].model or trigger.rateLimit.window), or the steps make no workflow (parameter steps; the message lists every problem)", 413: "body over 512 KB" }),
    },
  },
  false,
);

export const list = guarded(
  { summary: "The team's workflows", description: "Each deployed workflow's latest version, by name.", responses: { 200: jsonResponse("The workflows", T.Object({ data: T.Array(Workflow) })) } },
  true,
);

export const trigger = guarded(
  {
    summary: "Trigger a deployed workflow",
    description:
      "Starts a run of the latest version of the workflow named (or of `version`), on `input`; answers 202 at once with the run, which goes on in the background as a durable run: each step's result is stored as it completes, and a run whose server dies resumes elsewhere (or on restart) without calling a completed step again. " +
      "Steps route as the team: its stored provider keys, budgets and fallback. 403 cloud_disabled when the team's Cloud features are off. Takes an Idempotency-Key.",
    requestBody: jsonRequestBody(
      T.Object({
        workflow: T.String(),
        version: T.Optional(T.Integer({ minimum: 1, description: "this version of the workflow (as its deploy answered) rather than the latest" })),
        input: T.Optional(T.Any({ description: "the run's input, read by {{input.…}}" })),
      }),
    ),
    responses: {
      202: jsonResponse("The run, queued", T.Object({ run: Run })),
      ...errorResponses("spec", { 400: "workflow or version invalid (details.parameter)", 404: "no workflow of that name (at that version) is deployed in this team (not_found)", 413: "body over 1 MB" }),
    },
  },
  false,
);

export const runs = guarded({ summary: "The team's workflow runs", parameters: paging, responses: { 200: runPage, ...errorResponses("spec", { 400: "limit or offset invalid (details.parameter names it)" }) } }, true);

export const run = guarded(
  {
    summary: "A workflow run",
    description: "The run with its WorkflowResult once it ended (null while queued or running).",
    parameters: [pathParameter("id", T.String({ pattern: "^wfr_" }), "the run's id")],
    responses: { 200: jsonResponse("The run", T.Object({ run: Run })), ...errorResponses("spec", notFound) },
  },
  true,
);

export const debugRuns = guarded({ summary: "Debug: the team's workflow runs", parameters: paging, responses: { 200: runPage, ...errorResponses("spec", { 400: "limit or offset invalid (details.parameter names it)" }) } }, true);

export const debugRun = guarded(
  {
    summary: "Debug: a workflow run step by step",
    description: "Every step of the run's workflow version in declaration order: what it read, its prompts after templating, model, output, tokens, cost, latency, retries and error; a step not started yet is pending.",
    parameters: [pathParameter("runId", T.String({ pattern: "^wfr_" }), "the run's id")],
    responses: { 200: jsonResponse("The run", T.Object({ run: T.Intersect([Run, T.Object({ steps: T.Array(DebugStep) })]) })), ...errorResponses("spec", notFound) },
  },
  true,
);

export const debugWorkflows = guarded(
  { summary: "Debug: the team's workflows", description: "Each deployed workflow's latest version with its definition.", responses: { 200: jsonResponse("The workflows", T.Object({ data: T.Array(Workflow) })) } },
  true,
);
