// The events a relayed call raises (src/surfaces/cloud/relay.ts): relay.completed for every call
// that was logged as a run (a stream's when it ends), relay.fallback_used beside it when a fallback
// served, and budget.exceeded when a budget refused the call.
import type { RouteResult } from "../router/result.ts";
import type { RunRecord } from "../run-record.ts";
import type { PlanName } from "../tenancy/plans.ts";
import { emitHostedEvent, type EmitDeps } from "./emit.ts";
import { completedData, fallbackData } from "./events.ts";

export interface RelayContext {
  relayId: string;
  requestId: string;
  /** The model the caller asked for. */
  to: string;
}

/** Queues the events of a relayed call's result; returns at once. */
export function emitRelayEvents(deps: EmitDeps, team: { id: string; plan: PlanName }, ctx: RelayContext, result: RouteResult): void {
  if (result.kind === "stream") {
    void result.ended.then((record) => emitRun(deps, team, ctx, record));
  } else if (result.kind === "answer") {
    emitRun(deps, team, ctx, result.record);
  } else if (result.error.code === "budget_exceeded") {
    const { message, extra } = result.error;
    const data = { relay_id: ctx.relayId, request_id: ctx.requestId, requested_model: ctx.to, message, retry_after_sec: extra.retryAfter ?? null };
    emitHostedEvent(deps, team, "budget.exceeded", () => data);
  } else if (result.record) {
    emitRun(deps, team, ctx, result.record);
  }
}

function emitRun(deps: EmitDeps, team: { id: string; plan: PlanName }, ctx: RelayContext, record: RunRecord): void {
  emitHostedEvent(deps, team, "relay.completed", () => completedData(record, ctx.relayId));
  if (record.fallbackUsed) emitHostedEvent(deps, team, "relay.fallback_used", () => fallbackData(record, ctx.relayId));
}
