// Deployed workflows and their durable cloud runs (issue 39, items 3 and 4; src/core/workflows/cloud/).
// A workflow is a team's named definition in versions, one row each, a new version only when the
// definition changes (its digest). A run is a row the runner claims under a lease, so a run outlives
// the process that started it and instances sharing a database never run it twice at once; each
// step's result is a row written as the step completes, which a resumed run does not call again.

export type WorkflowRunStatus = "queued" | "running" | "succeeded" | "failed";

export interface DeployedWorkflow {
  /** `wf_…`, one per version. */
  id: string;
  team_id: string;
  name: string;
  /** 1 for the first definition of the name, one more for each changed one. */
  version: number;
  /** The definition as deployed (a WorkflowDefinition). */
  definition: unknown;
  /** SHA-256 of the definition's canonical JSON: the same definition is the same version. */
  digest: string;
  /** ms since the epoch. */
  created_at: number;
}

export interface WorkflowRun {
  /** `wfr_…` */
  id: string;
  team_id: string;
  workflow_id: string;
  workflow_name: string;
  version: number;
  status: WorkflowRunStatus;
  input: unknown;
  /** The WorkflowResult as JSON once the run ended; null before. */
  result: unknown;
  /** ms since the epoch. */
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** While running: when the runner's claim runs out; another instance may take the run over after it. */
  lease_until: number | null;
}

export interface StoredStep {
  run_id: string;
  name: string;
  status: string;
  /** The engine's StepResult as JSON. */
  result: unknown;
  at: number;
}

export interface WorkflowStore {
  /** Inserts the version unless the team has one of the name with this digest; the stored one either way. */
  deploy(w: Omit<DeployedWorkflow, "version">): Promise<DeployedWorkflow>;
  getWorkflow(id: string): Promise<DeployedWorkflow | undefined>;
  /** The team's latest version of `name`. */
  latest(teamId: string, name: string): Promise<DeployedWorkflow | undefined>;
  /** The team's version `version` of `name`. */
  atVersion(teamId: string, name: string, version: number): Promise<DeployedWorkflow | undefined>;
  /** Each workflow's latest version, by name. */
  listWorkflows(teamId: string): Promise<DeployedWorkflow[]>;
  /** Inserts the run; false (and nothing written) when a run with its id exists. */
  insertRun(run: WorkflowRun): Promise<boolean>;
  getRun(id: string): Promise<WorkflowRun | undefined>;
  /** A team's runs, newest first. */
  listRuns(teamId: string, limit: number, offset: number): Promise<{ runs: WorkflowRun[]; total: number }>;
  /** Runs a runner may take at `now`: queued ones, and running ones whose lease ran out; oldest first. */
  dueRuns(now: number, limit: number): Promise<WorkflowRun[]>;
  /** Takes a due run by a compare-and-set on its status and lease; false when someone else took it. */
  claimRun(id: string, now: number, until: number): Promise<boolean>;
  /** Extends a running run's lease; false when the run is no longer running. */
  renewLease(id: string, until: number): Promise<boolean>;
  /** A running run back to queued (its runner stops), for the next runner to resume at once. */
  releaseRun(id: string): Promise<void>;
  finishRun(id: string, status: "succeeded" | "failed", result: unknown, at: number): Promise<void>;
  /** Records a step's result once; a second write of the step is ignored. */
  putStep(step: StoredStep): Promise<void>;
  steps(runId: string): Promise<StoredStep[]>;
}
