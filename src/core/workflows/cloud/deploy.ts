// Deploying a workflow to the cloud (POST /api/v1/workflows): the body checked field by field (each
// refusal a 400 naming the field), then whole by defineWorkflow (the graph, models, templates,
// schemas: a 400 on `steps` listing every problem), and stored as the team's next version unless the
// same definition is deployed already (its digest: the canonical JSON of the fields the engine reads).
import { CoreError } from "../../errors.ts";
import { prefixedId } from "../../ids.ts";
import { array, invalid, object, text, texts } from "../../registry/fields.ts";
import { sha256Hex } from "../../../runtime/hash.ts";
import type { DeployedWorkflow, WorkflowStore } from "../../../store/workflows/types.ts";
import { defineWorkflow, WorkflowDefinitionError } from "../define.ts";
import type { StepDefinition, WorkflowDefinition } from "../types.ts";

const MAX_STEPS = 50;
const MAX_PROMPT = 32_000;

/** The definition in the body, checked; throws a 400 naming the first field wrong. */
export function definitionOf(body: Record<string, unknown>): WorkflowDefinition {
  const name = text(body.name, "name", 128);
  const steps = array(body.steps, "steps", MAX_STEPS).map((raw, i) => stepOf(object(raw, `steps[${i}]`), `steps[${i}]`));
  const definition = { name, steps };
  try {
    defineWorkflow(definition);
  } catch (e) {
    if (!(e instanceof WorkflowDefinitionError)) throw e;
    throw invalid("steps", undefined, "workflow", `do not make a workflow: ${e.problems.join("; ")}`);
  }
  return definition;
}

function stepOf(raw: Record<string, unknown>, at: string): StepDefinition {
  const step: StepDefinition = { name: text(raw.name, `${at}.name`, 128), model: text(raw.model, `${at}.model`, 256) };
  if (raw.dependsOn !== undefined) step.dependsOn = texts(raw.dependsOn, `${at}.dependsOn`, MAX_STEPS, 128);
  for (const key of ["systemPrompt", "userPrompt"] as const) if (raw[key] !== undefined) step[key] = text(raw[key], `${at}.${key}`, MAX_PROMPT);
  if (raw.schema !== undefined) {
    if (typeof raw.schema !== "boolean" && (typeof raw.schema !== "object" || raw.schema === null || Array.isArray(raw.schema))) throw invalid(`${at}.schema`, raw.schema, "object", "must be a JSON Schema");
    step.schema = raw.schema as StepDefinition["schema"];
  }
  if (raw.retry !== undefined) {
    const retry = object(raw.retry, `${at}.retry`);
    if (!Number.isInteger(retry.maxRetries) || (retry.maxRetries as number) < 0 || (retry.maxRetries as number) > 10) throw invalid(`${at}.retry.maxRetries`, retry.maxRetries, "integer", "must be an integer from 0 to 10");
    if (retry.backoffMs !== undefined && !(typeof retry.backoffMs === "number" && retry.backoffMs >= 0 && retry.backoffMs <= 60_000)) throw invalid(`${at}.retry.backoffMs`, retry.backoffMs, "number", "must be a number of ms from 0 to 60000");
    step.retry = { maxRetries: retry.maxRetries as number, ...(retry.backoffMs === undefined ? {} : { backoffMs: retry.backoffMs as number }) };
  }
  if (raw.metadata !== undefined) step.metadata = object(raw.metadata, `${at}.metadata`);
  return step;
}

/** Stores the definition as the team's workflow: the same definition again is the same version (with its own id, not `id`). */
export function deploy(store: WorkflowStore, teamId: string, definition: WorkflowDefinition, now: number, id = prefixedId("wf")): Promise<DeployedWorkflow> {
  return store.deploy({ id, team_id: teamId, name: definition.name, definition, digest: sha256Hex(canonical(definition)), created_at: now });
}

/** JSON with every object's keys sorted: the same definition written in another key order is the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The team's deployed workflow named `name` (its latest version, or `version`); 404 when there is none. */
export async function deployedWorkflow(store: WorkflowStore, teamId: string, name: string, version?: number): Promise<DeployedWorkflow> {
  const found = version === undefined ? await store.latest(teamId, name) : await store.atVersion(teamId, name, version);
  if (!found) throw new CoreError(404, "not_found", `no workflow named "${name}"${version === undefined ? "" : ` at version ${version}`} is deployed in this team`);
  return found;
}

/** The trigger body's optional `version`: a whole number from 1. */
export function versionOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw invalid("version", value, "integer", "must be a version number (an integer from 1)");
  return value as number;
}
