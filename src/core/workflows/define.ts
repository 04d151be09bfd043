// Building a workflow: its definition checked whole before any run (names, models, retry settings,
// schemas, templates, the dependency graph), every problem named in one error; what the engine then
// runs, with each schema compiled once.
import type { Validator } from "@cfworker/json-schema";
import { compileSchema } from "../../plugin/options-schema.ts";
import { ancestors, graphProblems, sinks, topologicalOrder } from "./dag.ts";
import { templateProblems } from "./template.ts";
import type { StepDefinition, WorkflowDefinition } from "./types.ts";

/** A workflow that cannot run as declared; `problems` lists each thing wrong, naming the step. */
export class WorkflowDefinitionError extends Error {
  override name = "WorkflowDefinitionError";
  constructor(
    readonly workflowName: string,
    readonly problems: string[],
  ) {
    super(`workflow "${workflowName}": ${problems.join("; ")}`);
  }
}

export interface CompiledStep extends StepDefinition {
  dependsOn: readonly string[];
  /** The name route() is asked for. */
  routeModel: string;
  validator?: Validator;
}

export interface Workflow {
  readonly name: string;
  /** In declaration order. */
  readonly steps: readonly CompiledStep[];
  /** Each step after its dependencies. */
  readonly order: readonly string[];
  /** Steps no other step depends on: finalOutput is theirs. */
  readonly sinks: readonly string[];
}

// `<vendor>:<model>`; the vendor a lower-case name as Relay's providers are named.
const MODEL = /^([a-z][a-z0-9-]*):(\S.*)$/;
/** Vendor names the SDK accepts that Relay's providers spell otherwise. */
const VENDOR_ALIASES: Record<string, string> = { gemini: "google" };

/** The workflow ready to run; throws a WorkflowDefinitionError listing every problem. */
export function defineWorkflow(definition: WorkflowDefinition): Workflow {
  const problems: string[] = [];
  if (typeof definition.name !== "string" || definition.name.trim() === "") problems.push("a workflow needs a name");
  if (!Array.isArray(definition.steps) || definition.steps.length === 0) problems.push("a workflow needs at least one step");
  const nodes = (definition.steps ?? []).map((s) => ({ name: s.name, dependsOn: [...(s.dependsOn ?? [])] }));
  const graph = graphProblems(nodes);
  problems.push(...graph);
  const steps = (definition.steps ?? []).map((step, i) => compileStep(step, nodes[i]!.dependsOn, problems));
  if (graph.length === 0) {
    for (const step of steps) checkTemplates(step, ancestors(nodes, step.name), problems);
  }
  if (problems.length) throw new WorkflowDefinitionError(String(definition.name), problems);
  return Object.freeze({ name: definition.name, steps, order: topologicalOrder(nodes), sinks: sinks(nodes) });
}

function compileStep(step: StepDefinition, dependsOn: string[], problems: string[]): CompiledStep {
  const at = `step "${step.name}"`;
  if (typeof step.name !== "string" || step.name.trim() === "") problems.push("every step needs a name");
  const model = MODEL.exec(typeof step.model === "string" ? step.model : "");
  if (!model) problems.push(`${at}: model ${JSON.stringify(step.model)} is not <vendor>:<model>`);
  const retry = step.retry;
  if (retry !== undefined && !(Number.isInteger(retry.maxRetries) && retry.maxRetries >= 0)) problems.push(`${at}: retry.maxRetries must be an integer >= 0`);
  if (retry?.backoffMs !== undefined && !(Number.isFinite(retry.backoffMs) && retry.backoffMs >= 0)) problems.push(`${at}: retry.backoffMs must be a number >= 0`);
  let validator: Validator | undefined;
  if (step.schema !== undefined) {
    try {
      validator = compileSchema(step.schema);
    } catch (e) {
      problems.push(`${at}: schema ${(e as Error).message}`);
    }
  }
  const routeModel = model ? `${VENDOR_ALIASES[model[1]!] ?? model[1]}:${model[2]}` : "";
  return { ...step, dependsOn, routeModel, validator };
}

function checkTemplates(step: CompiledStep, readable: ReadonlySet<string>, problems: string[]): void {
  for (const key of ["systemPrompt", "userPrompt"] as const) {
    const template = step[key];
    if (template === undefined) continue;
    if (typeof template !== "string") problems.push(`step "${step.name}": ${key} must be a string`);
    else for (const p of templateProblems(template, readable)) problems.push(`step "${step.name}": ${key}: ${p}`);
  }
}
