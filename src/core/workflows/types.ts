// The run engine's shapes: a workflow as its author declares it (StepConfig as interface §2.11 has
// it, plus a step's name, model and dependencies), the port each step calls through, and what a run
// gives back (WorkflowResult, §2.11). The SDK's local mode and the server's cloud mode share them.
import type { ChatRequest } from "../ir.ts";

/** Retries of a step whose vendor call failed in a way another call could fix (5xx, 429, no answer). */
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

export interface StepDefinition extends StepConfig {
  name: string;
  /** `<vendor>:<model>` (interface §2.9), e.g. `openai:gpt-4o-mini`. */
  model: string;
  /** Steps whose outputs this one needs; it starts once all of them completed. */
  dependsOn?: readonly string[];
}

export interface WorkflowDefinition {
  name: string;
  steps: readonly StepDefinition[];
}

/** One vendor call of a step, as the engine asks the port for it. */
export interface StepCall {
  workflowName: string;
  stepName: string;
  /** The step's metadata, for the run's record. */
  metadata?: Record<string, unknown>;
  request: ChatRequest;
  /** Aborted when the run times out, is aborted, or another step failed: the call must end. */
  signal: AbortSignal;
}

/** Why a call failed: the status classifies it (5xx, 429, 408 and no answer are retryable). */
export interface CallFailure {
  /** An HTTP-like status: the vendor's, or the router's own refusal's. */
  status: number;
  code: string;
  message: string;
}

export type CallOutcome =
  | {
      kind: "answer";
      text: string;
      /** `<provider>:<model>` that answered. */
      model: string;
      inputTokens: number;
      outputTokens: number;
      costUsd: number;
    }
  | { kind: "error"; error: CallFailure };

/** The port every step's vendor call goes through: route() (routeCaller, route-port.ts) in both modes. */
export type StepCaller = (call: StepCall) => Promise<CallOutcome>;

export type StepStatus = "completed" | "failed" | "cancelled";

/** What a step did: enough for a debug view to show it, and for a resumed run to use its output. */
export interface StepResult {
  status: StepStatus;
  /** The parsed JSON when the step has a schema, else the answer's text; absent unless completed. */
  output?: unknown;
  /** The step's model as declared. */
  model: string;
  /** `<provider>:<model>` that gave the last answer (a fallback may differ from `model`). */
  routedModel?: string;
  tokens: { input: number; output: number; total: number };
  /** USD over every call of the step (retries and a repair included). */
  cost: number;
  /** ms from the step's start to its end. */
  latency: number;
  /** Calls repeated after a retryable failure (the repair call is not one). */
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
  /** Every step that started (or was handed in completed), by name. */
  steps: Record<string, StepResult>;
  /** On success: the sink step's output, or an object of each sink step's output by name when there are several. */
  finalOutput?: unknown;
  error?: WorkflowError;
  metadata: { workflowName: string; startTime: Date; endTime: Date; duration: number; [key: string]: unknown };
}

export interface EngineOptions {
  call: StepCaller;
  /** ms; the run ends when it passes, its calls in flight aborted. */
  timeout?: number;
  signal?: AbortSignal;
  /** Added to the result's metadata. */
  metadata?: Record<string, unknown>;
  /** Steps already completed (a resumed run): their results are taken as they are and they are not run. */
  completed?: Readonly<Record<string, StepResult>>;
  /** Called as each step completes, before any step that depends on it starts (where a durable run stores it). */
  onStepDone?: (stepName: string, result: StepResult) => void | Promise<void>;
}
