// The billing_accounts and billing_events tables (migration 13) on either driver. A subscription event
// is applied by one conditional UPDATE (only when no later event was applied), so two deliveries racing
// leave the state of the later event, never a mix.
import { isPlanName } from "../../core/tenancy/plans.ts";
import { numberOrNull, textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { BillingAccount, BillingStore, ChangeResult, ProcessedEvent, SubscriptionChange } from "./types.ts";

export class SqlBillingStore implements BillingStore {
  constructor(private readonly sql: SqlConnection) {}

  async getAccount(teamId: string): Promise<BillingAccount | undefined> {
    const row = await this.sql.one("SELECT * FROM billing_accounts WHERE team_id = $1", [teamId]);
    return row ? fromRow(row) : undefined;
  }

  async putCustomer(teamId: string, customerId: string, now: string): Promise<BillingAccount> {
    await this.sql.run(
      `INSERT INTO billing_accounts (team_id, stripe_customer_id, subscription_id, subscription_status, plan, event_created, created_at, updated_at)
       VALUES ($1, $2, NULL, NULL, NULL, NULL, $3, $3) ON CONFLICT (team_id) DO NOTHING`,
      [teamId, customerId, now],
    );
    return (await this.getAccount(teamId))!;
  }

  async applySubscription(c: SubscriptionChange): Promise<ChangeResult> {
    const owner = await this.sql.one("SELECT team_id FROM billing_accounts WHERE stripe_customer_id = $1", [c.customerId]);
    if (!owner) return { kind: "unknown_customer" };
    const teamId = String(owner.team_id);
    // Equal `created` applies: Stripe stamps whole seconds, and a redelivery of the applied event must
    // be able to finish what a crash between this update and the team's plan change left undone.
    // Placeholders numbered in order of first use: SQLite numbers `$n` names by appearance.
    const changed = await this.sql.run(
      `UPDATE billing_accounts SET subscription_id = $1, subscription_status = $2, plan = COALESCE($3, plan), event_created = $4, updated_at = $5
       WHERE stripe_customer_id = $6 AND (event_created IS NULL OR event_created <= $4)`,
      [c.subscriptionId, c.status, c.plan, c.eventCreated, c.now, c.customerId],
    );
    return { kind: changed > 0 ? "applied" : "stale", teamId };
  }

  async linkSubscription(customerId: string, teamId: string, subscriptionId: string, now: string): Promise<boolean> {
    const sql = "UPDATE billing_accounts SET subscription_id = $1, updated_at = $2 WHERE stripe_customer_id = $3 AND team_id = $4";
    return (await this.sql.run(sql, [subscriptionId, now, customerId, teamId])) > 0;
  }

  async eventProcessed(eventId: string): Promise<boolean> {
    return (await this.sql.one("SELECT event_id FROM billing_events WHERE event_id = $1", [eventId])) !== undefined;
  }

  async recordEvent(e: ProcessedEvent): Promise<void> {
    await this.sql.run(
      "INSERT INTO billing_events (event_id, type, created, team_id, outcome, processed_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_id) DO NOTHING",
      [e.event_id, e.type, e.created, e.team_id, e.outcome, e.processed_at],
    );
  }
}


function fromRow(row: Row): BillingAccount {
  const plan = textOrNull(row.plan);
  return {
    team_id: String(row.team_id),
    stripe_customer_id: String(row.stripe_customer_id),
    subscription_id: textOrNull(row.subscription_id),
    subscription_status: textOrNull(row.subscription_status),
    plan: isPlanName(plan) ? plan : null,
    event_created: numberOrNull(row.event_created),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}
