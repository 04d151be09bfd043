// A hosted team's Stripe billing (issue 38 item 7, src/core/billing/): the team's Stripe customer and
// the state of its subscription as the last applied webhook event left it, and the ids of the events
// already handled, so a redelivered event changes nothing more.
import type { PlanName } from "../../core/tenancy/plans.ts";

export interface BillingAccount {
  team_id: string;
  /** `cus_…`, made at the team's first checkout. */
  stripe_customer_id: string;
  /** `sub_…`; null until a checkout completes or a subscription event names one. */
  subscription_id: string | null;
  /** Stripe's subscription status (active, trialing, past_due, canceled, …); null before any subscription event. */
  subscription_status: string | null;
  /** The plan billing last gave the team (the source of its current plan when it matches teams.plan). */
  plan: PlanName | null;
  /** `created` (Unix seconds) of the last subscription event applied; older events are stale. */
  event_created: number | null;
  /** ISO 8601. */
  created_at: string;
  updated_at: string;
}

/** A subscription event's effect on the account of the customer it names. */
export interface SubscriptionChange {
  customerId: string;
  subscriptionId: string;
  status: string;
  /** The plan to give the team; null to keep its plan (a past_due subscription keeps it meanwhile). */
  plan: PlanName | null;
  /** The event's `created`, Unix seconds. */
  eventCreated: number;
  /** ISO 8601. */
  now: string;
}

export type ChangeResult = { kind: "applied"; teamId: string } | { kind: "stale"; teamId: string } | { kind: "unknown_customer" };

export interface ProcessedEvent {
  /** `evt_…` */
  event_id: string;
  type: string;
  /** The event's `created`, Unix seconds. */
  created: number;
  team_id: string | null;
  /** What handling it did: applied, stale, ignored, unknown_customer. */
  outcome: string;
  /** ISO 8601. */
  processed_at: string;
}

export interface BillingStore {
  getAccount(teamId: string): Promise<BillingAccount | undefined>;
  /** Records the team's customer unless it has one already; the account as stored (the first customer wins). */
  putCustomer(teamId: string, customerId: string, now: string): Promise<BillingAccount>;
  /** Applies a subscription event to its customer's account unless a later event was applied already. */
  applySubscription(change: SubscriptionChange): Promise<ChangeResult>;
  /** Records a completed checkout's subscription on the account of `customerId`, when it is `teamId`'s; false otherwise. */
  linkSubscription(customerId: string, teamId: string, subscriptionId: string, now: string): Promise<boolean>;
  eventProcessed(eventId: string): Promise<boolean>;
  /** Records a handled event; recording one twice keeps the first. */
  recordEvent(event: ProcessedEvent): Promise<void>;
}
