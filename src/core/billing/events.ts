// Stripe's webhook events (README "Billing"): verified with the SDK's signature check over the raw body
// (the Stripe-Signature header, t=…,v1=…, within five minutes of relay.clock), handled once per event
// id, and moving the team's plan on subscription events. The team's plan is read on every request and
// every retention pass, so its rate limit and log retention change with it at once.
//
// Out-of-order delivery: Stripe does not promise order. Each subscription event carries the whole
// subscription as it was when the event was made; it is applied only when its `created` is not older
// than that of the event applied last (src/store/billing/sql.ts), so a late `updated` cannot undo a
// later `deleted`. Events of the same second apply in arrival order.
import type Stripe from "stripe";
import { CoreError } from "../errors.ts";
import type { PlanName } from "../tenancy/plans.ts";
import { PAID_PLANS } from "./sessions.ts";
import { type BillingConfig, type BillingDeps, billingSettings, notConfigured, stripeOf, stripeSdk } from "./stripe.ts";

/** Seconds a signature's timestamp may be old: the SDK's default, against relay.clock. */
const TOLERANCE_SEC = 300;
const SUBSCRIPTION_EVENTS = new Set(["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"]);
/** Statuses that end the paid plan: the team is back on free. */
const ENDED = new Set(["canceled", "unpaid", "incomplete_expired", "paused"]);
const GRANTING = new Set(["active", "trialing"]);

export type EventOutcome = "applied" | "stale" | "ignored" | "unknown_customer" | "duplicate";

export interface EventReceipt {
  received: true;
  id: string;
  type: string;
  outcome: EventOutcome;
}

/** Verifies and handles one delivery; 400 invalid_signature (nothing changed) when it is not Stripe's. */
export async function receiveEvent(deps: BillingDeps, payload: string, signature: string | null): Promise<EventReceipt> {
  const settings = billingSettings(deps);
  if (!settings.webhookSecret) throw notConfigured("cloud.billing.webhookSecret (env STRIPE_WEBHOOK_SECRET)");
  if (!signature) throw new CoreError(400, "invalid_signature", "the Stripe-Signature header is missing");
  const event = await verified(await stripeOf(deps), payload, signature, settings.webhookSecret, deps.clock.now());
  const receipt = (outcome: EventOutcome): EventReceipt => ({ received: true, id: event.id, type: event.type, outcome });
  if (await deps.store.billing.eventProcessed(event.id)) return receipt("duplicate");
  const { outcome, teamId } = await handle(deps, settings, event);
  if (outcome === "unknown_customer") deps.log.warn("a Stripe event names a customer of no team; ignored", { event: event.id, type: event.type });
  // Recorded after the change: a failure in between answers 500, and Stripe's redelivery finishes it.
  const processed_at = new Date(deps.clock.now()).toISOString();
  await deps.store.billing.recordEvent({ event_id: event.id, type: event.type, created: event.created, team_id: teamId, outcome, processed_at });
  return receipt(outcome);
}

/** The async check: under Bun the SDK signs with Web Crypto, which has no synchronous HMAC. */
async function verified(stripe: Stripe, payload: string, signature: string, secret: string, nowMs: number): Promise<Stripe.Event> {
  try {
    return await stripe.webhooks.constructEventAsync(payload, signature, secret, TOLERANCE_SEC, undefined, nowMs);
  } catch (e) {
    // The SDK's message says what failed (no signature matched, timestamp too old); it holds no secret.
    const reason = e instanceof (await stripeSdk()).errors.StripeSignatureVerificationError ? e.message : "the body is not a Stripe event";
    throw new CoreError(400, "invalid_signature", `not a valid Stripe event: ${reason}`);
  }
}

type Handled = { outcome: Exclude<EventOutcome, "duplicate">; teamId: string | null };

async function handle(deps: BillingDeps, settings: BillingConfig, event: Stripe.Event): Promise<Handled> {
  const now = new Date(deps.clock.now()).toISOString();
  if (event.type === "checkout.session.completed") {
    const session = event.data.object;
    const customer = idOf(session.customer);
    const subscription = idOf(session.subscription);
    const teamId = session.client_reference_id;
    if (session.mode !== "subscription" || !customer || !subscription || !teamId) return { outcome: "ignored", teamId };
    const linked = await deps.store.billing.linkSubscription(customer, teamId, subscription, now);
    return { outcome: linked ? "applied" : "unknown_customer", teamId: linked ? teamId : null };
  }
  if (!SUBSCRIPTION_EVENTS.has(event.type)) return { outcome: "ignored", teamId: null };
  const sub = event.data.object as Stripe.Subscription;
  const plan = planOf(settings, sub, event.type === "customer.subscription.deleted");
  const status = event.type === "customer.subscription.deleted" ? "canceled" : sub.status;
  const change = { customerId: idOf(sub.customer)!, subscriptionId: sub.id, status, plan, eventCreated: event.created, now };
  const result = await deps.store.billing.applySubscription(change);
  if (result.kind === "unknown_customer") return { outcome: "unknown_customer", teamId: null };
  if (result.kind === "applied" && plan) await deps.store.teams.setPlan(result.teamId, plan);
  return { outcome: result.kind, teamId: result.teamId };
}

/**
 * The plan a subscription gives: free once it ended (deleted, canceled, unpaid, expired or paused);
 * while active or trialing, the highest plan whose price is among its items; null (the plan stays)
 * while it is incomplete or past due, or when none of its prices is one of cloud.billing.prices.
 */
function planOf(settings: BillingConfig, sub: Stripe.Subscription, deleted: boolean): PlanName | null {
  if (deleted || ENDED.has(sub.status)) return "free";
  if (!GRANTING.has(sub.status)) return null;
  const prices = new Set(sub.items.data.map((item) => item.price.id));
  return PAID_PLANS.toReversed().find((p) => settings.prices[p] && prices.has(settings.prices[p])) ?? null;
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === "string" ? v : v.id);
