// A workflow as the SDK's user builds it: createWorkflow(name), .step(name, {model, …StepConfig,
// dependsOn}) for each step, then .run(input, RunOptions). The definition is checked by the run
// engine (src/core/workflows) when it runs or is deployed: a cycle, an unknown dependency or a bad
// model or template rejects with a WorkflowDefinitionError before any vendor or cloud is called.
// Cloud mode and deploy() are sdk/src/cloud.ts.
import { defineWorkflow, routeCaller, runWorkflow, type StepConfig, type StepDefinition, type WorkflowResult } from "../../src/core/workflows/index.ts";
import { type CloudWorkflow, type Deployment, deployWorkflow, runInCloud, type WebhookTrigger, type WorkflowSchedule } from "./cloud.ts";
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
  /**
   * `local` (the default): vendors called from this process. `cloud`: the workflow is deployed
   * (when this definition is not yet) and run on the Relay cloud with the team's stored provider
   * keys; needs configure({ cloud: { enabled: true, accessToken } }) and RELAY_API_HOST.
   */
  mode?: "local" | "cloud";
  /** For this run, over configure()'s and the environment's, by vendor (local mode; the cloud uses the team's). */
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
  #trigger: WebhookTrigger | undefined;
  readonly #schedules: WorkflowSchedule[] = [];

  constructor(name: string) {
    this.name = name;
  }

  /** Adds a step; returns the workflow, for chaining. */
  step(name: string, options: StepOptions): this {
    this.#steps.push({ ...options, name });
    return this;
  }

  /** Attaches a webhook trigger (interface §2.10), replacing one attached before; deploy() registers it. */
  webhook(trigger: WebhookTrigger): this {
    this.#trigger = { ...trigger };
    return this;
  }

  /** Attaches a cron schedule; deploy() makes it unless the team has an equal one for this workflow. */
  schedule(cron: string, options: Omit<WorkflowSchedule, "cron"> = {}): this {
    this.#schedules.push({ ...options, cron });
    return this;
  }

  /** The steps as added. */
  get steps(): readonly StepDefinition[] {
    return this.#steps.map((s) => ({ ...s }));
  }

  /** Runs the workflow with `input`; resolves with the result, failed runs included (`success: false`). */
  async run(input: unknown = {}, options: RunOptions = {}): Promise<WorkflowResult> {
    const mode = options.mode ?? "local";
    if (mode !== "local" && mode !== "cloud") throw new TypeError(`mode must be "local" or "cloud", not ${JSON.stringify(mode)}`);
    if (options.providers) checkProviders(options.providers, "options.providers");
    const definition = defineWorkflow({ name: this.name, steps: this.#steps });
    startAutomaticCheck();
    if (mode === "cloud") return runInCloud(this.#cloud(), input, options);
    const router = routerFor(effectiveProviders(platformEnv(), getConfig().providers, options.providers), recordCall);
    const call = routeCaller(router.route, options.metadata ? { metadata: options.metadata } : {});
    return runWorkflow(definition, input, { call, timeout: options.timeout, signal: options.signal, metadata: options.metadata });
  }

  /**
   * Deploys the workflow to the Relay cloud: a new version when its definition changed, the stored
   * one when not; registers its webhook trigger (or removes the one deployed before, without one)
   * and makes each attached schedule the team lacks.
   */
  async deploy(): Promise<Deployment> {
    defineWorkflow({ name: this.name, steps: this.#steps });
    return deployWorkflow(this.#cloud());
  }

  #cloud(): CloudWorkflow {
    return { name: this.name, steps: this.#steps, trigger: this.#trigger, schedules: this.#schedules };
  }
}

export function createWorkflow(name: string): Workflow {
  return new Workflow(name);
}
