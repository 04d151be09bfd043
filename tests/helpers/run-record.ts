// A complete run record for store, writer and run-log bench code: unique, time-ordered ids
// (as Relay's request ids are), one successful attempt; any field can be overridden.
import type { RunRecord } from "../../src/core/run-record.ts";

let seq = 0;

export function sampleRun(over: Partial<RunRecord> = {}): RunRecord {
  seq++;
  return {
    id: `req_${Date.now().toString(36)}${String(seq).padStart(10, "0")}`,
    ts: Date.now(),
    latencyMs: 1.23,
    requestedModel: "gpt-4o-mini",
    routedModel: "gpt-4o-mini",
    provider: "openai",
    strategy: "passthrough",
    status: 200,
    outcome: "ok",
    stream: false,
    clientFormat: "openai",
    inputTokens: 12,
    outputTokens: 30,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.0000123,
    fallbackUsed: false,
    attempts: 1,
    events: [{ type: "attempt", model: "gpt-4o-mini", provider: "openai", status: 200, latencyMs: 0.51 }],
    reasons: [],
    metadata: {},
    overheadMs: 0.12,
    ...over,
  };
}
