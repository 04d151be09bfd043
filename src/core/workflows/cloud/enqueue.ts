// Queuing a run of a deployed workflow, whatever starts it (POST /api/v1/webhooks/trigger, a
// schedule's firing): a `queued` row that the WorkflowRunner claims, kicked so it starts at once.
import { CoreError } from "../../errors.ts";
import { prefixedId } from "../../ids.ts";
import type { Clock } from "../../limits/clock.ts";
import type { DeployedWorkflow, WorkflowRun, WorkflowStore } from "../../../store/workflows/types.ts";

export interface RunQueue {
  readonly clock: Clock;
  readonly store: { readonly workflows: WorkflowStore };
  readonly workflowRunner: { kick(): void };
}

/** Starting runs (a trigger, a schedule) needs the team's Cloud features: 403 cloud_disabled otherwise. */
export async function requireCloud(accounts: { cloudEnabled(teamId: string): Promise<boolean | undefined> }, teamId: string): Promise<void> {
  if (!(await accounts.cloudEnabled(teamId))) throw new CoreError(403, "cloud_disabled", "Cloud features are off for this team; an administrator turns them on (relay cloud teams set-cloud <team> on)");
}

/** The queued run; undefined when a run with this id exists already (a caller-chosen id queues once). */
export async function enqueueRun(deps: RunQueue, teamId: string, workflow: DeployedWorkflow, input: unknown, id = prefixedId("wfr")): Promise<WorkflowRun | undefined> {
  const run: WorkflowRun = {
    id, team_id: teamId, workflow_id: workflow.id, workflow_name: workflow.name, version: workflow.version,
    status: "queued", input: input ?? null, result: null, created_at: deps.clock.now(), started_at: null, finished_at: null, lease_until: null,
  };
  if (!(await deps.store.workflows.insertRun(run))) return undefined;
  deps.workflowRunner.kick();
  return run;
}
