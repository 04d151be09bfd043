// A run of a workflow: a DAG scheduler that starts every step whose dependencies completed, all of
// them at once, and each next one as soon as its last dependency completes. The first failure ends
// the run: the steps still running are aborted (their in-flight calls through their signal), and the
// error names the failed step and its cause. A timeout or the caller's abort ends it the same way,
// naming a step that was running. Steps handed in as completed (a resumed run) are not run again.
import type { Workflow } from "./define.ts";
import { runStep } from "./step.ts";
import type { EngineOptions, StepResult, WorkflowError, WorkflowResult } from "./types.ts";

/** Runs `workflow` on `input`; a failure is a result with success false; rejects only on bad options (`completed`, `timeout`). */
export async function runWorkflow(workflow: Workflow, input: unknown, options: EngineOptions): Promise<WorkflowResult> {
  const startTime = new Date();
  const steps: Record<string, StepResult> = { ...completedSteps(workflow, options.completed) };
  const run = new AbortController();
  const stopTimer = timeoutOn(run, options.timeout);
  const stopListening = follow(run, options.signal);
  const running = new Map<string, Promise<void>>();
  let error: WorkflowError | undefined;
  const fail = (e: WorkflowError) => {
    error ??= e;
    run.abort(e);
  };

  const startReady = () => {
    for (const step of workflow.steps) {
      if (run.signal.aborted || steps[step.name] || running.has(step.name)) continue;
      if (!step.dependsOn.every((d) => steps[d]?.status === "completed")) continue;
      const done = runStep(step, { workflowName: workflow.name, input, steps, call: options.call, signal: run.signal }).then(async (result) => {
        // Kept before it counts as done: no dependent starts on a result the hook has not stored.
        if (result.status === "completed") await stored(step.name, result, options, fail);
        steps[step.name] = result;
        if (result.status === "failed") fail({ message: `step "${step.name}" failed: ${result.error!.message}`, stepName: step.name, cause: result.error!.cause });
        if (result.status === "cancelled") fail(stopped(run.signal.reason, step.name, options.timeout));
      });
      running.set(step.name, done.finally(() => running.delete(step.name)));
    }
  };

  try {
    startReady();
    while (running.size) {
      await Promise.race(running.values());
      startReady();
    }
  } finally {
    stopTimer();
    stopListening();
  }
  // Aborted with no step running (before the first started): no step to name. A run whose steps all completed has succeeded.
  const unfinished = workflow.steps.some((s) => steps[s.name]?.status !== "completed");
  if (run.signal.aborted && unfinished) error ??= stopped(run.signal.reason, undefined, options.timeout);
  const endTime = new Date();
  const metadata = { ...options.metadata, workflowName: workflow.name, startTime, endTime, duration: endTime.getTime() - startTime.getTime() };
  if (error) return { success: false, steps, error, metadata };
  return { success: true, steps, finalOutput: finalOutputOf(workflow, steps), metadata };
}

/** The sink's output; with several sinks, each one's by name. */
function finalOutputOf(workflow: Workflow, steps: Record<string, StepResult>): unknown {
  if (workflow.sinks.length === 1) return steps[workflow.sinks[0]!]!.output;
  return Object.fromEntries(workflow.sinks.map((name) => [name, steps[name]!.output]));
}

/** The completed results handed in, checked: each names a step of this workflow and is completed. */
function completedSteps(workflow: Workflow, completed: EngineOptions["completed"] = {}): Record<string, StepResult> {
  for (const [name, result] of Object.entries(completed)) {
    if (!workflow.steps.some((s) => s.name === name)) throw new TypeError(`completed: workflow "${workflow.name}" has no step "${name}"`);
    if (result.status !== "completed") throw new TypeError(`completed: step "${name}" is ${result.status}, not completed`);
  }
  return completed;
}

/** The result handed to onStepDone; a hook that fails fails the run, since the step could not be kept. */
async function stored(name: string, result: StepResult, options: EngineOptions, fail: (e: WorkflowError) => void): Promise<void> {
  try {
    await options.onStepDone?.(name, result);
  } catch (e) {
    fail({ message: `onStepDone failed for step "${name}": ${(e as Error)?.message ?? String(e)}`, stepName: name, cause: e });
  }
}

/** Why the run's signal aborted, as the run's error: the timeout, the caller's abort, or a failure already recorded. */
function stopped(reason: unknown, stepName: string | undefined, timeout: number | undefined): WorkflowError {
  if (reason instanceof TimeoutMarker) return { message: `the workflow timed out after ${timeout} ms`, stepName, cause: { code: "timeout", timeoutMs: timeout } };
  return { message: "the workflow was aborted", stepName, cause: reason };
}

class TimeoutMarker extends Error {
  override name = "TimeoutError";
}

function timeoutOn(run: AbortController, timeout: number | undefined): () => void {
  if (timeout === undefined) return () => {};
  if (!(Number.isFinite(timeout) && timeout >= 0)) throw new TypeError(`timeout must be a number of ms >= 0 (got ${timeout})`);
  const timer = setTimeout(() => run.abort(new TimeoutMarker("workflow timeout")), timeout);
  return () => clearTimeout(timer);
}

/** Aborts the run when the caller's signal does. */
function follow(run: AbortController, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  const abort = () => run.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
}
