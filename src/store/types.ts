// The store: one interface per aggregate (each in its folder: src/store/<aggregate>/types.ts),
// composed here with the lifecycle. Callers depend only on these interfaces; bun:sqlite is the
// embedded default and Postgres (Bun.SQL) serves multi-instance deployments.
import type { AgentRegistry } from "./agents/types.ts";
import type { BillingStore } from "./billing/types.ts";
import type { BenchmarkStore } from "./benchmarks/types.ts";
import type { BudgetSpend } from "./budgets/types.ts";
import type { ConsoleSessionStore } from "./console-sessions/types.ts";
import type { CredentialStore } from "./credentials/types.ts";
import type { IdempotencyStore } from "./idempotency/types.ts";
import type { ApiKeyStore } from "./keys/types.ts";
import type { KvStore } from "./kv/types.ts";
import type { MeshStore } from "./mesh/types.ts";
import type { ResponseStore } from "./responses/types.ts";
import type { RunLog } from "./runs/types.ts";
import type { TeamStore } from "./teams/types.ts";
import type { AccountStore } from "./users/types.ts";
import type { WebhookStore } from "./webhooks/types.ts";
import type { WorkflowStore } from "./workflows/types.ts";
import type { TriggerStore } from "./triggers/types.ts";
import type { ScheduleStore } from "./schedules/types.ts";

export interface Store {
  readonly driver: "sqlite" | "postgres";
  readonly runs: RunLog;
  readonly budgets: BudgetSpend;
  readonly kv: KvStore;
  readonly agents: AgentRegistry;
  /** Stored Responses API answers (POST /v1/responses with `store`). */
  readonly responses: ResponseStore;
  /** The hosted API's teams and their API keys (`relay cloud`). */
  readonly teams: TeamStore;
  readonly apiKeys: ApiKeyStore;
  /** First answers to hosted POSTs sent with an Idempotency-Key. */
  readonly idempotency: IdempotencyStore;
  /** Signed-in browsers of the team console. */
  readonly consoleSessions: ConsoleSessionStore;
  /** Outbound webhooks: endpoints, deliveries and their attempts. */
  readonly webhooks: WebhookStore;
  /** The hosted teams' provider keys, sealed under the master key. */
  readonly credentials: CredentialStore;
  /** The hosted teams' Stripe customers and subscriptions, and the billing events handled. */
  readonly billing: BillingStore;
  /** The hosted teams' users, their access tokens and invites, and sign-in throttling. */
  readonly accounts: AccountStore;
  /** Routing outcomes reported to the cloud (the mesh), and the batches they came in. */
  readonly mesh: MeshStore;
  /** Benchmark runs and their calls' results. */
  readonly benchmarks: BenchmarkStore;
  /** Deployed workflows, their durable runs and each run's step results. */
  readonly workflows: WorkflowStore;
  /** Webhook triggers of deployed workflows and the deliveries they saw lately. */
  readonly triggers: TriggerStore;
  /** Deployed workflows run on cron expressions. */
  readonly schedules: ScheduleStore;
  /** Apply pending versioned migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** True when the database reports no corruption. */
  integrityCheck(): Promise<boolean>;
  /** A cheap query that answers while the database is reachable; rejects otherwise (the hosted health check). */
  ping(): Promise<void>;
  /** Finish pending work and release the database. */
  close(): Promise<void>;
}
