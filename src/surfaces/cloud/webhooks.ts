// A team's outbound webhooks over the hosted API (issue 37 item 5; README "Webhooks"): endpoints
// created (the signing secret in that answer only), listed (never a secret), removed and given a new
// secret, and each endpoint's deliveries listed, newest first, with their attempts; a failed one can
// be sent again. Pro plan only (403 plan_upgrade_required otherwise). Managing takes a standard key,
// listing a read-only one too. Sending is src/core/webhooks/.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { requireMasterKey } from "../../core/secrets/master-key.ts";
import { requirePlan } from "../../core/tenancy/plans.ts";
import { forgetEndpoints } from "../../core/webhooks/emit.ts";
import { createEndpoint, endpointFields, publicEndpoint, rotateSecret } from "../../core/webhooks/endpoints.ts";
import type { Relay } from "../../relay.ts";
import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from "../../store/webhooks/types.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-webhooks.ts";
import { pageOf } from "./paging.ts";
import { CORE, READ, guarded, type HostedAuth, type HostedHandler } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";

const BODY_LIMIT = 64 * 1024;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function publicDelivery(d: WebhookDelivery & { attempt_log: DeliveryAttempt[] }) {
  return {
    id: d.id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === "pending" ? iso(d.next_attempt_at) : null,
    last_status: d.last_status,
    last_error: d.last_error,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
    payload: JSON.parse(d.payload) as unknown,
    attempt_log: d.attempt_log.map((a) => ({ attempt: a.attempt, at: iso(a.at), response_status: a.response_status, error: a.error, duration_ms: a.duration_ms })),
  };
}

/** A handler for pro teams only. */
const pro = (handler: HostedHandler): HostedHandler => (request, auth, params) => {
  requirePlan(auth.team.plan, "webhooks", "outbound webhooks");
  return handler(request, auth, params);
};

/** The caller's team's endpoint `id`; another team's are as unknown as missing ones. */
async function ownEndpoint(relay: Relay, auth: HostedAuth, id: string): Promise<WebhookEndpoint> {
  const endpoint = await relay.store.webhooks.getEndpoint(id);
  if (!endpoint || endpoint.team_id !== auth.team.id) throw new CoreError(404, "not_found", `no webhook endpoint ${id} in this team`);
  return endpoint;
}

function handlers(relay: Relay): Record<"create" | "list" | "remove" | "rotate" | "deliveries" | "retry", HostedHandler> {
  const store = relay.store.webhooks;
  return {
    create: async (request, auth) => {
      const text = await hostedText(request, BODY_LIMIT);
      return idempotent(relay, auth.team.id, request, text, async () => {
        const fields = endpointFields(jsonObjectOf(text));
        const endpoint = await createEndpoint(store, auth.team.id, fields, relay.config().cloud.allowPrivateNetworks, await requireMasterKey(relay));
        forgetEndpoints(relay, auth.team.id);
        return json({ webhook: publicEndpoint(endpoint), secret: endpoint.secret }, 201);
      });
    },
    list: async (_, auth) => json({ webhooks: (await store.listEndpoints(auth.team.id)).map(publicEndpoint) }),
    remove: async (_, auth, params) => {
      const endpoint = await ownEndpoint(relay, auth, params.id!);
      await store.deleteEndpoint(endpoint.id);
      forgetEndpoints(relay, auth.team.id);
      return json({ webhook: publicEndpoint(endpoint), deleted: true });
    },
    rotate: async (_, auth, params) => {
      const endpoint = await ownEndpoint(relay, auth, params.id!);
      const secret = await rotateSecret(store, endpoint, relay.clock.now(), await requireMasterKey(relay));
      return json({ webhook: publicEndpoint(endpoint), secret });
    },
    deliveries: async (request, auth, params) => {
      const endpoint = await ownEndpoint(relay, auth, params.id!);
      const query = new URL(request.url).searchParams;
      const { limit, offset } = pageOf(query);
      const page = await store.listDeliveries(endpoint.id, limit, offset);
      return json({ deliveries: page.deliveries.map(publicDelivery), total: page.total, limit, offset });
    },
    retry: async (_, auth, params) => {
      const endpoint = await ownEndpoint(relay, auth, params.id!);
      const delivery = await store.getDelivery(params.delivery!);
      if (!delivery || delivery.endpoint_id !== endpoint.id) throw new CoreError(404, "not_found", `no delivery ${params.delivery} to this endpoint`);
      if (!(await store.retryDelivery(delivery.id, relay.clock.now()))) {
        throw new CoreError(409, "delivery_not_failed", `delivery ${delivery.id} is ${delivery.status}; only a failed delivery is sent again`);
      }
      relay.webhookDispatcher.kick();
      return json({ id: delivery.id, status: "pending" }, 202);
    },
  };
}

export function webhookRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-webhooks" })
    .post("/api/webhooks", guarded(relay, CORE, pro(h.create)), { parse: "none", detail: docs.createWebhook })
    .get("/api/webhooks", guarded(relay, READ, pro(h.list)), { detail: docs.listWebhooks })
    .delete("/api/webhooks/:id", guarded(relay, CORE, pro(h.remove)), { parse: "none", detail: docs.deleteWebhook })
    .post("/api/webhooks/:id/rotate-secret", guarded(relay, CORE, pro(h.rotate)), { parse: "none", detail: docs.rotateSecret })
    .get("/api/webhooks/:id/deliveries", guarded(relay, READ, pro(h.deliveries)), { detail: docs.listDeliveries })
    .post("/api/webhooks/:id/deliveries/:delivery/retry", guarded(relay, CORE, pro(h.retry)), { parse: "none", detail: docs.retryDelivery });
}
