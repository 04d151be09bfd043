// Declarations of @relay/sdk, written by hand (the code's own types span the server's modules) and
// held to the code by tests/sdk/types.ts, which the repository's type check compiles.

/** Interface §2.11's ProviderConfig: a vendor's credentials, or a Relay proxy's address as `baseUrl`. */
export interface ProviderConfig {
  apiKey: string;
  baseUrl?: string;
  /** OpenAI's organization (sent as OpenAI-Organization); other vendors have none and ignore it. */
  organization?: string;
}

export interface TelemetryConfig {
  enabled: boolean;
  /** The Relay cloud's address; RELAY_API_HOST when absent. */
  apiEndpoint?: string;
  /** A Relay API key, sent as x-api-key. */
  apiKey?: string;
}

/** Cloud mode's settings; the cloud's address is RELAY_API_HOST. */
export interface CloudConfig {
  enabled: boolean;
  /** The team's id (`team_…`), for your reference: the cloud takes the team from the token. */
  teamId?: string;
  /** A signed-in user's access token (`rat_…`, sent as Authorization: Bearer) or a standard API key (`rk_live_…`, sent as x-api-key). */
  accessToken?: string;
}

/** Interface §2.11's GlobalConfig; `providers` by vendor name (`openai`, `anthropic`, `google`, `xai`, `ollama`, …). */
export interface GlobalConfig {
  providers?: Record<string, ProviderConfig>;
  telemetry?: TelemetryConfig;
  cloud?: CloudConfig;
}

/** Retries of a call that failed in a way another call could fix (5xx, 429, no answer). */
export interface RetryConfig {
  maxRetries: number;
  /** The wait before the first retry, doubled before each next one; 1000 when absent. */
  backoffMs?: number;
}

/** Interface §2.11's StepConfig. */
export interface StepConfig {
  /** JSON Schema the step's answer must be JSON of (structured output); without it the output is the answer's text. */
  schema?: Record<string, unknown> | boolean;
  systemPrompt?: string;
  /** `{{input.a.b}}` and `{{steps.<name>.output.x}}` are replaced; without it the user message is the run's input as JSON. */
  userPrompt?: string;
  retry?: RetryConfig;
  metadata?: Record<string, unknown>;
}

/** A step's settings: its model as `<vendor>:<model>`, StepConfig, and the steps it needs. */
export interface StepOptions extends StepConfig {
  model: string;
  dependsOn?: readonly string[];
}

/** A step as added to a workflow. */
export interface StepDefinition extends StepOptions {
  name: string;
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

export type StepStatus = "completed" | "failed" | "cancelled";

export interface StepResult {
  status: StepStatus;
  /** The parsed JSON when the step has a schema, else the answer's text; absent unless completed. */
  output?: unknown;
  /** The step's model as declared. */
  model: string;
  /** `<provider>:<model>` that gave the last answer. */
  routedModel?: string;
  tokens: { input: number; output: number; total: number };
  /** USD over every call of the step (retries and a repair included). */
  cost: number;
  /** ms from the step's start to its end. */
  latency: number;
  /** Calls repeated after a retryable failure. */
  retries: number;
  /** Whether the answer needed the repair call to match the schema. */
  repaired: boolean;
  /** The prompts sent, after templating. */
  prompt: { system?: string; user: string };
  error?: { message: string; cause?: unknown };
}

export interface WorkflowError {
  message: string;
  stepName?: string;
  cause?: unknown;
}

/** Interface §2.11's WorkflowResult. */
export interface WorkflowResult {
  success: boolean;
  /** Every step that started, by name. */
  steps: Record<string, StepResult>;
  /** On success: the sink step's output, or an object of each sink step's output by name when there are several. */
  finalOutput?: unknown;
  error?: WorkflowError;
  metadata: { workflowName: string; startTime: Date; endTime: Date; duration: number; [key: string]: unknown };
}

export declare class Workflow {
  readonly name: string;
  constructor(name: string);
  /** Adds a step; returns the workflow, for chaining. */
  step(name: string, options: StepOptions): this;
  /** The steps as added. */
  get steps(): readonly StepDefinition[];
  /**
   * Runs the workflow with `input`; resolves with the result, failed runs included (`success: false`).
   * Rejects with a WorkflowDefinitionError when the steps do not make a workflow, and in cloud mode
   * with a RelayCloudError when the cloud refuses a request (a bad token, Cloud features off, …).
   */
  run(input?: unknown, options?: RunOptions): Promise<WorkflowResult>;
  /** Attaches a webhook trigger (interface §2.10), replacing one attached before; deploy() registers it. */
  webhook(trigger: WebhookTrigger): this;
  /** Attaches a cron schedule; deploy() makes it unless the team has an equal one for this workflow. */
  schedule(cron: string, options?: Omit<WorkflowSchedule, "cron">): this;
  /**
   * Deploys the workflow to the Relay cloud: a new version when its definition changed, the stored
   * one when not; registers its webhook trigger (or removes the one deployed before, without one)
   * and makes each attached schedule the team lacks.
   */
  deploy(): Promise<Deployment>;
}

/** Interface §2.10's webhook trigger configuration. */
export interface WebhookTrigger {
  /** The path under the team's hook address: the trigger answers at `{hooks_url}/<team>/<endpoint>`. */
  endpoint: string;
  method?: "POST" | "PUT";
  /** Headers a call must carry with these values. */
  headers?: Record<string, string>;
  /** Signs calls: with signatureHeader, `t=<unix s>,v1=<hex HMAC-SHA256>` in it; without, Standard Webhooks (a `whsec_…` secret). */
  secret?: string;
  signatureHeader?: string;
  /** Calls allowed per window, the window written as `30s`, `1m`, `2h`, `1d`. */
  rateLimit?: { requests: number; window: string };
}

/** A cron schedule for a workflow: `cron` read on `timezone`'s wall clock (IANA; UTC by default), each run with `input`. */
export interface WorkflowSchedule {
  cron: string;
  timezone?: string;
  input?: unknown;
}

/** A deployed version of a workflow, as the cloud answered a deploy. */
export interface Deployment {
  /** `wf_…`, one per version. */
  id: string;
  name: string;
  version: number;
  /** false when this definition was deployed already (the version is the one stored then). */
  created: boolean;
  /** The webhook trigger as the cloud registered it (its secret not shown), with the `url` to call; null without one. */
  trigger: { endpoint: string; url: string; method: "POST" | "PUT"; [field: string]: unknown } | null;
  /** The team's schedule (`sch_…`) for each attached one, made by this deploy or found equal. */
  schedules: Array<{ id: string; cron: string; timezone: string; [field: string]: unknown }>;
}

/** The Relay cloud refused a request (its hosted error `{error: {code, message}, request_id}`), or answered what is not one. */
export declare class RelayCloudError extends Error {
  readonly name: "RelayCloudError";
  /** The HTTP status. */
  readonly status: number;
  /** The hosted error's code: `invalid_api_key`, `cloud_disabled`, `not_found`, … */
  readonly code: string;
  readonly requestId?: string;
  constructor(message: string, status: number, code: string, requestId?: string);
}

export declare function createWorkflow(name: string): Workflow;

/** Thrown when a workflow is run whose definition is wrong; `problems` lists each. */
export declare class WorkflowDefinitionError extends Error {
  readonly workflowName: string;
  readonly problems: string[];
  constructor(workflowName: string, problems: string[]);
}

/** Merges `config` into the configuration: providers by vendor, `telemetry` and `cloud` replaced whole. */
export declare function configure(config: GlobalConfig): void;
/** A copy of what configure() set (environment variables not included). */
export declare function getConfig(): GlobalConfig;
export declare function resetConfig(): void;

/** Uploads the telemetry records waiting, and waits for the uploads under way; never rejects. */
export declare function flushTelemetry(): Promise<void>;

export interface UpdateCheck {
  updateAvailable: boolean;
  current: string;
  latest: string;
  /** `major`, `minor`, `patch`, … (the server's semantic-version distance), `none` when current. */
  urgency?: string;
}

export interface CheckOptions {
  /** The Relay cloud's address; RELAY_API_HOST (or telemetry's apiEndpoint) when absent. */
  apiHost?: string;
  /** ms before the check gives up; 3000 by default. */
  timeout?: number;
}

/** Rejects when no host is known, the host does not answer in time, or answers with an error. */
export declare function checkForUpdates(options?: CheckOptions): Promise<UpdateCheck>;

/** This package's version. */
export declare const VERSION: string;
