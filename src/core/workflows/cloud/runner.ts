// Durable cloud runs (issue 39 item 3): each queued run is claimed under a lease by the LeasedRunner
// (src/core/leased-runner.ts), so with several instances on one database a run goes on in exactly one.
// Its steps route through route() as the team (its stored credentials, budgets and fallback), and each
// step's result is stored as it completes (onStepDone) before any dependent starts. A resumed run —
// after a stop (released at once) or a crash (its lease runs out) — hands the stored results to the
// engine as `completed`, so no completed step is called again; only a step in flight may be.
import type { CredentialStore } from "../../../store/credentials/types.ts";
import type { WorkflowRun, WorkflowStore } from "../../../store/workflows/types.ts";
import { LeasedRunner } from "../../leased-runner.ts";
import type { Clock } from "../../limits/clock.ts";
import type { RouterDeps } from "../../router/deps.ts";
import { route } from "../../router/route.ts";
import { type CredentialDeps, teamCredentials } from "../../tenancy/credentials.ts";
import { defineWorkflow } from "../define.ts";
import { routeCaller } from "../route-port.ts";
import { runWorkflow } from "../run.ts";
import type { StepResult, WorkflowDefinition, WorkflowResult } from "../types.ts";

export type WorkflowDeps = RouterDeps &
  CredentialDeps & { readonly clock: Clock; readonly store: { readonly workflows: WorkflowStore; readonly credentials: CredentialStore } };

/** Runs one instance executes at once; each step of each is one call in flight. */
const MAX_ACTIVE = 16;

export class WorkflowRunner {
  private readonly runner: LeasedRunner<WorkflowRun>;

  constructor(
    private readonly deps: WorkflowDeps,
    leaseMs: () => number,
  ) {
    const store = () => deps.store.workflows;
    this.runner = new LeasedRunner(
      deps,
      {
        kind: "workflow run",
        due: (now, limit) => store().dueRuns(now, limit),
        claim: (id, now, until) => store().claimRun(id, now, until),
        renew: (id, until) => store().renewLease(id, until),
        execute: (run, signal, lost) => this.execute(run, signal, lost),
      },
      leaseMs,
      MAX_ACTIVE,
    );
  }

  /** Polls from now on (the cloud listener starts it); the first poll resumes what a previous process left. */
  start(): void {
    this.runner.start();
  }

  /** Polls now (a run was triggered), or right after the poll that runs. */
  kick(): void {
    this.runner.kick();
  }

  /** No new run from now on; the running ones are interrupted, put back in the queue, and waited for. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  private async execute(run: WorkflowRun, signal: AbortSignal, lost: () => boolean): Promise<void> {
    const store = this.deps.store.workflows;
    try {
      const result = await this.resume(run, signal);
      if (lost()) return;
      if (signal.aborted) return await store.releaseRun(run.id);
      // The steps that did not complete are kept too, for the debug view.
      for (const [name, step] of Object.entries(result.steps)) if (step.status !== "completed") await store.putStep({ run_id: run.id, name, status: step.status, result: step, at: this.deps.clock.now() });
      await store.finishRun(run.id, result.success ? "succeeded" : "failed", result, this.deps.clock.now());
    } catch (e) {
      if (lost()) return;
      this.deps.log.error("a workflow run failed", { run: run.id, error: e });
      const failed = { success: false, steps: {}, error: { message: "an internal error ended the run; the server's log says why" }, metadata: { workflowName: run.workflow_name } };
      await store.finishRun(run.id, "failed", failed, this.deps.clock.now()).catch((err: unknown) => this.deps.log.error("a workflow run's failure could not be recorded", { run: run.id, error: err }));
    }
  }

  /** Runs what is left of the run: the stored completed steps handed in, each newly completed one stored. */
  private async resume(run: WorkflowRun, signal: AbortSignal): Promise<WorkflowResult> {
    const store = this.deps.store.workflows;
    const deployed = await store.getWorkflow(run.workflow_id);
    if (!deployed) throw new Error(`workflow ${run.workflow_id} of run ${run.id} is gone`);
    const workflow = defineWorkflow(deployed.definition as WorkflowDefinition);
    const completed: Record<string, StepResult> = {};
    for (const s of await store.steps(run.id)) if (s.status === "completed") completed[s.name] = s.result as StepResult;
    const credentials = await teamCredentials(this.deps, run.team_id);
    const call = routeCaller((c) => route(this.deps, c), { team: run.team_id, credentials, metadata: { workflow_run: run.id } });
    return runWorkflow(workflow, run.input, {
      call,
      signal,
      completed,
      metadata: { runId: run.id, version: run.version },
      onStepDone: (name, result) => store.putStep({ run_id: run.id, name, status: result.status, result, at: this.deps.clock.now() }),
    });
  }
}
