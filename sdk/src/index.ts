// @relay/sdk: build a workflow of model calls and run it in this process (local mode), on Relay's
// routing core and run engine, or on the Relay cloud (cloud mode). sdk/README.md is the user's guide; types/index.d.ts its declarations.
export { configure, getConfig, resetConfig } from "./config.ts";
export type { CloudConfig, GlobalConfig, ProviderConfig, TelemetryConfig } from "./config.ts";
export { createWorkflow, Workflow } from "./workflow.ts";
export { RelayCloudError } from "./cloud.ts";
export type { Deployment, WebhookTrigger, WorkflowSchedule } from "./cloud.ts";
export type { RunOptions, StepOptions } from "./workflow.ts";
export { flushTelemetry } from "./telemetry.ts";
export { checkForUpdates } from "./updates.ts";
export type { CheckOptions, UpdateCheck } from "./updates.ts";
export { SDK_VERSION as VERSION } from "./version.ts";
export { WorkflowDefinitionError } from "../../src/core/workflows/index.ts";
export type { RetryConfig, StepConfig, StepDefinition, StepResult, StepStatus, WorkflowError, WorkflowResult } from "../../src/core/workflows/index.ts";
