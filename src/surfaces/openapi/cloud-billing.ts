// OpenAPI operations of the hosted plans' billing (src/surfaces/cloud/billing.ts).
import { Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { guarded } from "./cloud-keys.ts";
import { type Operation, errorResponses, headerParameter, jsonRequestBody, jsonResponse } from "./common.ts";

const tags = ["billing"];
const Url = T.String({ format: "uri", description: "an absolute http or https URL" });
const Session = (id: string, what: string) =>
  T.Object({ id: T.String({ pattern: `^${id}_`, description: `Stripe's ${what} id` }), url: T.String({ format: "uri", description: `Stripe's ${what} page: send the user there` }) });

const NOT_CONFIGURED = "billing is not configured on this server (billing_not_configured): no Stripe secret key";
const OWNER_ONLY = "a signed-in user who is not the team's owner (permission_denied): billing takes a standard API key or an owner's access token";
const STRIPE_FAILED = "Stripe refused or could not be reached (payment_provider_error); the server's log has Stripe's answer";

export const checkout: Operation = guarded(
  {
    tags,
    summary: "Start a subscription checkout",
    description:
      "A Stripe Checkout Session (mode subscription) for one of the plans sold here (a plan with a price in cloud.billing.prices), for the caller's team: " +
      "its Stripe customer (made at the team's first checkout), the team's id as client_reference_id. Send the user to `url`; " +
      "the plan changes when Stripe's subscription event reaches POST /v1/billing/webhook, not here.",
    requestBody: jsonRequestBody(
      T.Object({ plan: T.Union([T.Literal("maker"), T.Literal("pro")]), success_url: Url, cancel_url: Url }, { $id: "CheckoutRequest" }),
    ),
    responses: {
      200: jsonResponse("The session", T.Composite([Session("cs", "checkout session"), T.Object({ plan: T.String() })], { $id: "CheckoutSession" })),
      ...errorResponses("spec", {
        400: "plan is not a plan sold here, or a URL is not an absolute http or https URL (details.parameter names it)",
        403: OWNER_ONLY,
        409: "the team's subscription is live (subscription_exists): change or cancel it in the portal",
        413: "body over 64 KB (request_too_large)",
        502: STRIPE_FAILED,
        503: NOT_CONFIGURED,
      }),
    },
  },
  false,
);

export const portal: Operation = guarded(
  {
    tags,
    summary: "Open the billing portal",
    description: "A Stripe Billing Portal session for the team's Stripe customer, where the team changes its plan or payment method, sees invoices and cancels.",
    requestBody: jsonRequestBody(T.Object({ return_url: Url }, { $id: "PortalRequest" })),
    responses: {
      200: jsonResponse("The session", Session("bps", "billing portal session")),
      ...errorResponses("spec", {
        400: "return_url is not an absolute http or https URL (details.parameter names it)",
        403: OWNER_ONLY,
        409: "the team never started a checkout, so Stripe knows no customer of it (no_billing_account)",
        413: "body over 64 KB (request_too_large)",
        502: STRIPE_FAILED,
        503: NOT_CONFIGURED,
      }),
    },
  },
  false,
);

const Receipt = T.Object(
  {
    received: T.Literal(true),
    id: T.String({ pattern: "^evt_" }),
    type: T.String(),
    outcome: T.Union([T.Literal("applied"), T.Literal("stale"), T.Literal("ignored"), T.Literal("unknown_customer"), T.Literal("duplicate")], {
      description:
        "applied: the team's billing (and plan) changed; stale: a later event of the subscription was applied already; ignored: a type Relay does not act on; " +
        "unknown_customer: no team has that customer; duplicate: this event id was handled before, nothing changed",
    }),
  },
  { $id: "BillingEventReceipt" },
);

export const webhook: Operation = {
  tags,
  summary: "Stripe's webhook",
  description:
    "Stripe sends its events here (register this URL in Stripe's dashboard with customer.subscription.created, .updated, .deleted and checkout.session.completed). " +
    "No key: the Stripe-Signature header (t=…,v1=…, an HMAC-SHA256 of the raw body under cloud.billing.webhookSecret, at most five minutes old) authenticates it. " +
    "Handled once per event id. A subscription event moves the team's plan: active or trialing → the plan whose price is on the subscription; canceled, unpaid, " +
    "incomplete_expired, paused or deleted → free; past_due and incomplete keep the plan. An event older (its `created`) than the last one applied changes nothing. " +
    "The plan's rate limit and log retention follow at once.",
  parameters: [headerParameter("stripe-signature", "Stripe's signature of the raw body: t=<unix seconds>,v1=<hex HMAC-SHA256>")],
  requestBody: jsonRequestBody(T.Object({ id: T.String(), type: T.String() }, { description: "a Stripe event object, as Stripe sent it" })),
  responses: withHostedErrors(
    { 200: jsonResponse("Received", Receipt) },
    {
      400: "the Stripe-Signature header is missing or does not sign this body, or is too old (invalid_signature); nothing changed",
      413: "body over 1 MB (request_too_large)",
      503: "billing is not configured on this server (billing_not_configured): no Stripe secret key or webhook signing secret",
    },
  ),
};
