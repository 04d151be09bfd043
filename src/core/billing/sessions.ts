// Checkout and portal sessions of a hosted team (README "Billing"). A team's first checkout makes its
// Stripe customer (the Idempotency-Key per team makes two racing first checkouts one customer), and
// every later checkout and portal session reuses it; the team's id travels as client_reference_id and
// in the subscription's metadata. A team with a live subscription changes or cancels it in the portal.
import type Stripe from "stripe";
import { CoreError } from "../errors.ts";
import { httpUrl, invalid } from "../registry/fields.ts";
import type { PlanName } from "../tenancy/plans.ts";
import type { BillingAccount } from "../../store/billing/types.ts";
import type { Team } from "../../store/teams/types.ts";
import { type BillingConfig, type BillingDeps, callStripe, stripeOf } from "./stripe.ts";

/** The plans sold through Stripe: each needs its price id in cloud.billing.prices. */
export const PAID_PLANS = ["maker", "pro"] as const satisfies readonly PlanName[];
export type PaidPlan = (typeof PAID_PLANS)[number];

/** Subscription statuses that still bill the customer: a new checkout would make a second subscription. */
const LIVE = new Set(["active", "trialing", "past_due", "unpaid", "paused"]);

export interface CheckoutFields {
  plan: PaidPlan;
  price: string;
  successUrl: string;
  cancelUrl: string;
}

export interface SessionView {
  /** `cs_…` or `bps_…` */
  id: string;
  /** Stripe's page to send the user to. */
  url: string;
}

/** The body of POST /v1/billing/checkout; a 400 naming the wrong field. */
export function checkoutFields(settings: BillingConfig, body: Record<string, unknown>): CheckoutFields {
  const sold = PAID_PLANS.filter((p) => settings.prices[p]);
  const plan = body.plan;
  if (typeof plan !== "string" || !sold.includes(plan as PaidPlan)) {
    throw invalid("plan", plan, "string", sold.length ? `must be one of the plans sold here: ${sold.join(", ")}` : "cannot be bought here: no plan has a Stripe price configured");
  }
  const successUrl = httpUrl(body.success_url, "success_url");
  const cancelUrl = httpUrl(body.cancel_url, "cancel_url");
  return { plan: plan as PaidPlan, price: settings.prices[plan as PaidPlan]!, successUrl, cancelUrl };
}

/** The body of POST /v1/billing/portal. */
export const portalFields = (body: Record<string, unknown>): { returnUrl: string } => ({ returnUrl: httpUrl(body.return_url, "return_url") });

/** A Checkout Session (mode subscription) for `fields.plan`; 409 when the team's subscription is live. */
export async function createCheckout(deps: BillingDeps, team: Team, fields: CheckoutFields): Promise<SessionView & { plan: PaidPlan }> {
  const stripe = await stripeOf(deps);
  const account = await deps.store.billing.getAccount(team.id);
  if (account?.subscription_status && LIVE.has(account.subscription_status)) {
    throw new CoreError(409, "subscription_exists", `this team's subscription is ${account.subscription_status}; change or cancel it through POST /v1/billing/portal`);
  }
  const customer = account?.stripe_customer_id ?? (await createCustomer(deps, stripe, team)).stripe_customer_id;
  const metadata = { team_id: team.id, plan: fields.plan };
  const session = await callStripe(deps, "create a checkout session", () =>
    stripe.checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: team.id,
      line_items: [{ price: fields.price, quantity: 1 }],
      success_url: fields.successUrl,
      cancel_url: fields.cancelUrl,
      metadata,
      subscription_data: { metadata },
    }),
  );
  if (!session.url) throw new CoreError(502, "payment_provider_error", "Stripe answered a checkout session without a url");
  return { id: session.id, url: session.url, plan: fields.plan };
}

/** A Billing Portal session for the team's customer; 409 before the team's first checkout. */
export async function createPortal(deps: BillingDeps, team: Team, { returnUrl }: { returnUrl: string }): Promise<SessionView> {
  const stripe = await stripeOf(deps);
  const account = await deps.store.billing.getAccount(team.id);
  if (!account) throw new CoreError(409, "no_billing_account", "this team has no billing account yet; start one with POST /v1/billing/checkout");
  const session = await callStripe(deps, "create a billing portal session", () =>
    stripe.billingPortal.sessions.create({ customer: account.stripe_customer_id, return_url: returnUrl }),
  );
  return { id: session.id, url: session.url };
}

async function createCustomer(deps: BillingDeps, stripe: Stripe, team: Team): Promise<BillingAccount> {
  const customer = await callStripe(deps, "create a customer", () =>
    stripe.customers.create({ name: team.name, metadata: { team_id: team.id } }, { idempotencyKey: `relay-customer-${team.id}` }),
  );
  // Two racing first checkouts got the same customer (the Idempotency-Key); the first stored wins either way.
  return deps.store.billing.putCustomer(team.id, customer.id, new Date(deps.clock.now()).toISOString());
}
