// Billing of the hosted plans over the cloud listener (issue 38 item 7; README "Billing"): checkout and
// portal sessions for the caller's team (a standard key or a signed-in owner), and Stripe's webhook,
// which no key guards: the Stripe signature over the raw body authenticates it. The work is
// src/core/billing/.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { receiveEvent } from "../../core/billing/events.ts";
import { checkoutFields, createCheckout, createPortal, portalFields } from "../../core/billing/sessions.ts";
import { billingSettings } from "../../core/billing/stripe.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-billing.ts";
import { CORE, guarded, type HostedAuth, type HostedHandler } from "./auth.ts";
import { hostedJson, hostedText } from "./errors.ts";

const BODY_LIMIT = 64 * 1024;
/** Stripe's events are a few KB; a subscription with many items stays far below this. */
const WEBHOOK_LIMIT = 1024 * 1024;

/** Of a team's signed-in users only its owners spend its money; a standard API key may too. */
function ownerOrKey(auth: HostedAuth): void {
  if (auth.user && auth.user.role !== "owner") throw new CoreError(403, "permission_denied", `a ${auth.user.role.replace("_", "-")} user cannot manage billing; the team's owner can`);
}

function handlers(relay: Relay): Record<"checkout" | "portal", HostedHandler> {
  return {
    checkout: async (request, auth) => {
      ownerOrKey(auth);
      const fields = checkoutFields(billingSettings(relay), await hostedJson(request, BODY_LIMIT));
      return json(await createCheckout(relay, auth.team, fields));
    },
    portal: async (request, auth) => {
      ownerOrKey(auth);
      billingSettings(relay);
      const fields = portalFields(await hostedJson(request, BODY_LIMIT));
      return json(await createPortal(relay, auth.team, fields));
    },
  };
}

export function billingRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-billing" })
    .post("/v1/billing/checkout", guarded(relay, CORE, h.checkout), { parse: "none", detail: docs.checkout })
    .post("/v1/billing/portal", guarded(relay, CORE, h.portal), { parse: "none", detail: docs.portal })
    .post(
      "/v1/billing/webhook",
      async ({ request }) => {
        // The body as sent, decoded but never re-serialised: the signature is over these bytes.
        const payload = await hostedText(request, WEBHOOK_LIMIT);
        return json(await receiveEvent(relay, payload, request.headers.get("stripe-signature")));
      },
      { parse: "none", detail: docs.webhook },
    );
}
