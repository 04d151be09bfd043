// Relay's public surface for code outside src/: the benchmarks in bench/ (held
// to this module by tests/bench/boundary.test.ts) and the client SDK import
// only from here, so modules under src/ can move without breaking them. It
// holds the plugin API (what user plugins import as `relay/plugin`), the wire
// codecs by format, the complexity scorer behind `svc:auto`, the config's
// defaults, and startRelay: the app `relay start` serves, in the caller's process.
export * from "./plugin/api.ts";
export { codecFor } from "./core/formats/index.ts";
export type { Codec, RawStreamEvent, StreamDecoder, StreamEncoder } from "./core/formats/types.ts";
export { SseParser } from "./core/formats/sse.ts";
export { scoreRequest, type ComplexityScore, type Thresholds } from "./strategies/complexity/score.ts";
export { defaults } from "./config/load.ts";
export type { Config } from "./config/schema.ts";
export { startRelay, type EmbeddedRelay, type StartRelayOptions } from "./embed.ts";
// The run engine over the portable router, for bench/workflows.ts (step dispatch against route()).
export { createRouter, type Router, type RouterOptions } from "./portable.ts";
export { defineWorkflow, routeCaller, runWorkflow } from "./core/workflows/index.ts";
export type { WorkflowDefinition, WorkflowResult } from "./core/workflows/types.ts";
