// The run engine, one for the SDK's local mode and the server's cloud mode: build a workflow
// (defineWorkflow), then run it (runWorkflow) with a port to route() (routeCaller). See docs/workflows.md.
export { defineWorkflow, WorkflowDefinitionError, type Workflow } from "./define.ts";
export { routeCaller, type RouteFn } from "./route-port.ts";
export { runWorkflow } from "./run.ts";
export type * from "./types.ts";
