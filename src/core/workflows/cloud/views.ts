// How deployed workflows and their runs are shown over the hosted API: a workflow with its
// definition; a run with its WorkflowResult once it ended (/api/v1/webhooks/runs); and the debug view
// of a run (/v1/debug/runs/:runId), every step of the definition with what it read, its prompts after
// templating, model, output, tokens, cost, latency, retries and error.
import type { DeployedWorkflow, StoredStep, WorkflowRun } from "../../../store/workflows/types.ts";
import type { StepDefinition, StepResult, WorkflowDefinition } from "../types.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const workflowView = (w: DeployedWorkflow) => ({
  id: w.id,
  object: "workflow" as const,
  name: w.name,
  version: w.version,
  definition: w.definition,
  created_at: iso(w.created_at),
});

export const runView = (r: WorkflowRun) => ({
  id: r.id,
  object: "workflow_run" as const,
  workflow: r.workflow_name,
  workflow_id: r.workflow_id,
  version: r.version,
  status: r.status,
  input: r.input,
  result: r.result,
  created_at: iso(r.created_at),
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

/** The run with every step of its definition in declaration order; a step not started yet is `pending`. */
export function debugRunView(run: WorkflowRun, workflow: DeployedWorkflow | undefined, stored: StoredStep[]) {
  const results = new Map(stored.map((s) => [s.name, s.result as StepResult]));
  const steps = ((workflow?.definition as WorkflowDefinition | undefined)?.steps ?? []).map((step) => stepView(step, results.get(step.name), run.input, results));
  return { ...runView(run), steps };
}

function stepView(step: StepDefinition, result: StepResult | undefined, input: unknown, results: Map<string, StepResult>) {
  const dependsOn = [...(step.dependsOn ?? [])];
  return {
    name: step.name,
    status: result?.status ?? "pending",
    depends_on: dependsOn,
    // What the step's templates could read: the run's input and its dependencies' outputs.
    input: { input, steps: Object.fromEntries(dependsOn.map((d) => [d, { output: results.get(d)?.output ?? null }])) },
    prompt: result?.prompt ?? null,
    model: step.model,
    routed_model: result?.routedModel ?? null,
    output: result?.output ?? null,
    tokens: result?.tokens ?? null,
    cost_usd: result?.cost ?? null,
    latency_ms: result?.latency ?? null,
    retries: result?.retries ?? null,
    repaired: result?.repaired ?? null,
    error: result?.error ?? null,
  };
}
