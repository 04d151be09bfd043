// A team's webhook endpoints: the body of POST /api/webhooks checked and turned into an endpoint,
// its secret made and rotated, and the endpoint as listed (never a secret). Like Stripe's and
// Svix's: each endpoint has its own secret, shown once at creation (and at a rotation), and its own
// list of event types.
import { CoreError } from "../errors.ts";
import { prefixedId } from "../ids.ts";
import { assertPublicUrl } from "../net/public-url.ts";
import { array, httpUrl, invalid } from "../registry/fields.ts";
import type { WebhookEndpoint, WebhookStore } from "../../store/webhooks/types.ts";
import { EVENT_TYPE_NAMES, isEventType, type EventType } from "./events.ts";
import type { SealingKey } from "../secrets/sealing.ts";
import { sealSecret } from "./secrets.ts";
import { newSecret } from "./signing.ts";

/** Bounds a team's fan-out: every event is written once per endpoint. */
export const MAX_ENDPOINTS = 20;
const DESCRIPTION_MAX = 500;
/** How long a rotated-out secret still signs deliveries beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface EndpointFields {
  url: string;
  events: EventType[];
  description: string;
}

/** The fields of a new endpoint; a 400 naming the first wrong one. */
export function endpointFields(body: Record<string, unknown>): EndpointFields {
  const url = httpUrl(body.url, "url");
  const listed = array(body.events, "events", EVENT_TYPE_NAMES.length);
  if (listed.length === 0) throw invalid("events", body.events, "array", `must list at least one event type: ${EVENT_TYPE_NAMES.join(", ")}`);
  const events = listed.map((v, i) => {
    if (!isEventType(v)) throw invalid(`events[${i}]`, v, "string", `must be one of ${EVENT_TYPE_NAMES.join(", ")}`);
    return v;
  });
  const description = body.description ?? "";
  if (typeof description !== "string" || description.length > DESCRIPTION_MAX) {
    throw invalid("description", description, "string", `must be a string of at most ${DESCRIPTION_MAX} characters`);
  }
  return { url, events: [...new Set(events)], description };
}

/**
 * Stores a new endpoint of the team, its secret sealed under `key`; its URL must be one Relay may call
 * (400 unsafe_url otherwise). The endpoint is returned with its secret in clear, for the creating answer.
 */
export async function createEndpoint(store: WebhookStore, teamId: string, fields: EndpointFields, allowPrivate: boolean, key: SealingKey): Promise<WebhookEndpoint> {
  await assertPublicUrl(fields.url, { allowPrivate, parameter: "url" });
  if ((await store.listEndpoints(teamId)).length >= MAX_ENDPOINTS) {
    throw new CoreError(409, "webhook_limit_reached", `a team has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
  }
  const endpoint: WebhookEndpoint = {
    id: prefixedId("we"),
    team_id: teamId,
    ...fields,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    enabled: true,
    created_at: new Date().toISOString(),
  };
  await store.insertEndpoint({ ...endpoint, secret: await sealSecret(key, endpoint.id, endpoint.secret) });
  return endpoint;
}

/** A new secret for the endpoint (sealed under `key`); the old one keeps signing beside it for ROTATION_OVERLAP_MS. */
export async function rotateSecret(store: WebhookStore, endpoint: WebhookEndpoint, now: number, key: SealingKey): Promise<string> {
  const secret = newSecret();
  await store.rotateSecret(endpoint.id, await sealSecret(key, endpoint.id, secret), now + ROTATION_OVERLAP_MS);
  return secret;
}

/** The endpoint as listed: no secret. */
export function publicEndpoint(e: WebhookEndpoint) {
  return { id: e.id, url: e.url, events: e.events, description: e.description, enabled: e.enabled, created_at: e.created_at };
}
