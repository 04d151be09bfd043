// The event types a team's webhook endpoints can subscribe to, and the payload of each: the
// `{type, timestamp, data}` shape Standard Webhooks recommends, with thin `data` (ids to look the
// rest up with, GET /api/logs/{request_id}, and the few fields a receiver acts on). README
// "Webhooks" lists them.
import type { RunRecord } from "../run-record.ts";
import { logRecord } from "../tenancy/request-log.ts";

export const EVENT_TYPES = {
  /** A relayed call went to a vendor and ended: answered, a vendor's error carried, every candidate failed, or a stream that ended or was cut. */
  "relay.completed": "a relayed call finished (streams: when the stream ended)",
  /** The answer came from a fallback model, not the requested one. */
  "relay.fallback_used": "a relayed call was served by a fallback model",
  /** The plan's requests per minute were used up (429 rate_limit_exceeded); at most one a minute per team. */
  "limit.rate_exceeded": "the plan's rate limit refused a request",
  /** A relay was refused because a budget was spent (429 budget_exceeded); at most one a minute per team. */
  "budget.exceeded": "a budget refused a relayed call",
} as const;

export type EventType = keyof typeof EVENT_TYPES;

export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

export const isEventType = (v: unknown): v is EventType => typeof v === "string" && Object.hasOwn(EVENT_TYPES, v);

/** The JSON body of a delivery. */
export interface WebhookPayload {
  type: EventType;
  /** ISO 8601: when the event happened (each attempt's own time is in webhook-timestamp). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** relay.completed's data: the run of a relayed call, as the team's request log shows it. */
export function completedData(r: RunRecord, relayId: string): Record<string, unknown> {
  const log = logRecord(r);
  return {
    relay_id: relayId,
    request_id: log.id,
    requested_model: log.requested_model,
    model: log.model,
    provider: log.provider,
    status_code: log.status,
    outcome: r.outcome,
    stream: log.stream,
    latency_ms: Math.round(log.latency_ms),
    fallback_used: log.fallback_used,
    tokens: log.tokens,
    estimated_cost_usd: log.estimated_cost_usd,
  };
}

/** relay.fallback_used's data: which model served instead of the requested one, and why (the failed attempts and fallbacks, scrubbed). */
export function fallbackData(r: RunRecord, relayId: string): Record<string, unknown> {
  const log = logRecord(r);
  return { relay_id: relayId, request_id: log.id, requested_model: log.requested_model, model: log.model, provider: log.provider, fallback_events: log.fallback_events };
}
