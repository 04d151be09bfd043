// A workflow as the SDK's user builds it: createWorkflow(name), .step(name, {model, …StepConfig,
// dependsOn}) for each step, then .run(input, RunOptions). The definition is checked by the run
// engine (src/core/workflows) when it runs: a cycle, an unknown dependency or a bad model or
// template rejects run() with a WorkflowDefinitionError before any vendor is called.
import { defineWorkflow, routeCaller, runWorkflow, type StepConfig, type StepDefinition, type WorkflowResult } from "../../src/core/workflows/index.ts";
import { checkProviders, getConfig, platformEnv, type ProviderConfig } from "./config.ts";
import { effectiveProviders, routerFor } from "./router.ts";
import { recordCall } from "./telemetry.ts";
import { startAutomaticCheck } from "./updates.ts";

/** A step's settings: its model as `<vendor>:<model>`, StepConfig (§2.11), and the steps it needs. */
export interface StepOptions extends StepConfig {
  model: string;
  dependsOn?: readonly string[];
}

/** Interface §2.11's RunOptions. */
export interface RunOptions {
  /** `local` (the default): vendors called from this process. `cloud`: not available yet. */
  mode?: "local" | "cloud";
  /** For this run, over configure()'s and the environment's, by vendor. */
  providers?: Record<string, ProviderConfig>;
  /** ms; the run ends when it passes, the calls in flight aborted. */
  timeout?: number;
  /** Added to the result's metadata and to each call's telemetry record. */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

export class Workflow {
  readonly name: string;
  readonly #steps: StepDefinition[] = [];

  constructor(name: string) {
    this.name = name;
  }

  /** Adds a step; returns the workflow, for chaining. */
  step(name: string, options: StepOptions): this {
    this.#steps.push({ ...options, name });
    return this;
  }

  /** The steps as added. */
  get steps(): readonly StepDefinition[] {
    return this.#steps.map((s) => ({ ...s }));
  }

  /** Runs the workflow with `input`; resolves with the result, failed runs included (`success: false`). */
  async run(input: unknown = {}, options: RunOptions = {}): Promise<WorkflowResult> {
    const mode = options.mode ?? "local";
    if (mode === "cloud") throw new Error("cloud mode is not available yet in this SDK: run with mode \"local\" (the default)");
    if (mode !== "local") throw new TypeError(`mode must be "local" or "cloud", not ${JSON.stringify(mode)}`);
    if (options.providers) checkProviders(options.providers, "options.providers");
    const definition = defineWorkflow({ name: this.name, steps: this.#steps });
    startAutomaticCheck();
    const router = routerFor(effectiveProviders(platformEnv(), getConfig().providers, options.providers), recordCall);
    const call = routeCaller(router.route, options.metadata ? { metadata: options.metadata } : {});
    return runWorkflow(definition, input, { call, timeout: options.timeout, signal: options.signal, metadata: options.metadata });
  }
}

export function createWorkflow(name: string): Workflow {
  return new Workflow(name);
}
