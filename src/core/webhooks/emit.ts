// What the hosted surfaces call when something a team may want to hear about happens: a delivery row
// is written for each of the team's enabled endpoints subscribed to the event (only on a plan with
// webhooks), and the dispatcher is nudged to send it. Emitting never slows or fails the request: it
// returns at once, and a failure to write is logged, not thrown.
import type { Clock } from "../limits/clock.ts";
import type { Logger } from "../log.ts";
import { prefixedId } from "../ids.ts";
import { cacheOf, TtlCache } from "../ttl-cache.ts";
import { PLANS, type PlanName } from "../tenancy/plans.ts";
import type { WebhookDelivery, WebhookEndpoint, WebhookStore } from "../../store/webhooks/types.ts";
import type { EventType, WebhookPayload } from "./events.ts";

export interface EmitDeps {
  readonly store: { readonly webhooks: WebhookStore };
  readonly clock: Clock;
  readonly log: Logger;
  readonly webhookDispatcher: { kick(): void };
}

/** Events a request can raise over and over (every refused request): one a minute per team and type is enough to act on. */
const THROTTLED: ReadonlySet<EventType> = new Set(["limit.rate_exceeded", "budget.exceeded"]);
const THROTTLE_MS = 60_000;
const lastEmitted = new WeakMap<EmitDeps, Map<string, number>>();

/**
 * Queues `type` for the team's endpoints; returns at once. `data` is built only when an endpoint
 * listens: most relayed calls of a pro team have nobody to tell.
 */
export function emitHostedEvent(deps: EmitDeps, team: { id: string; plan: PlanName }, type: EventType, data: () => Record<string, unknown>): void {
  if (!PLANS[team.plan]?.webhooks || throttled(deps, team.id, type)) return;
  queue(deps, team.id, type, data).catch((e) => deps.log.error("queueing a webhook event failed", { team: team.id, type, error: e }));
}

function throttled(deps: EmitDeps, teamId: string, type: EventType): boolean {
  if (!THROTTLED.has(type)) return false;
  let seen = lastEmitted.get(deps);
  if (!seen) lastEmitted.set(deps, (seen = new Map()));
  const key = `${teamId} ${type}`;
  const now = deps.clock.now();
  const last = seen.get(key);
  if (last !== undefined && now - last < THROTTLE_MS) return true;
  seen.set(key, now);
  return false;
}

/**
 * A team's endpoints, read at most once per ENDPOINTS_TTL_MS: every relayed call of a pro team emits,
 * and should not pay a store read to learn that nobody listens. A change made through this instance
 * is seen at once (forgetEndpoints); one made through another instance within the TTL, and a delivery
 * queued meanwhile for a removed endpoint is dropped by the dispatcher.
 */
const ENDPOINTS_TTL_MS = 5_000;
const endpointCaches = new WeakMap<object, TtlCache<WebhookEndpoint[]>>();

/** Drops the cached endpoints of `teamId` (cached per Relay, `deps`): call after creating, removing or disabling one. */
export function forgetEndpoints(deps: object, teamId: string): void {
  endpointCaches.get(deps)?.forget(teamId);
}

const endpointsOf = (deps: EmitDeps, teamId: string): Promise<WebhookEndpoint[]> =>
  cacheOf(endpointCaches, deps, deps.clock, ENDPOINTS_TTL_MS).get(teamId, () => deps.store.webhooks.listEndpoints(teamId));

async function queue(deps: EmitDeps, teamId: string, type: EventType, data: () => Record<string, unknown>): Promise<void> {
  const endpoints = (await endpointsOf(deps, teamId)).filter((e) => e.enabled && e.events.includes(type));
  if (endpoints.length === 0) return;
  const now = deps.clock.now();
  const payload: WebhookPayload = { type, timestamp: new Date(now).toISOString(), data: data() };
  const body = JSON.stringify(payload);
  const deliveries: WebhookDelivery[] = endpoints.map((e) => ({
    id: prefixedId("msg"),
    endpoint_id: e.id,
    team_id: teamId,
    event_type: type,
    payload: body,
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    last_status: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  }));
  await deps.store.webhooks.insertDeliveries(deliveries);
  deps.webhookDispatcher.kick();
}
