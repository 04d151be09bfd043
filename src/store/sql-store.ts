// What both drivers' stores share: the aggregates whose SQL is the same on SQLite and Postgres
// (a driver adds those whose writes differ: runs, budgets) and the integrity check.
import type { AgentRegistry } from "./agents/types.ts";
import { SqlAgentRegistry } from "./agents/sql.ts";
import { SqlBillingStore } from "./billing/sql.ts";
import type { BudgetSpend } from "./budgets/types.ts";
import { SqlBenchmarkStore } from "./benchmarks/sql.ts";
import { SqlConsoleSessionStore } from "./console-sessions/sql.ts";
import { SqlCredentialStore } from "./credentials/sql.ts";
import { SqlIdempotencyStore } from "./idempotency/sql.ts";
import { SqlApiKeyStore } from "./keys/sql.ts";
import { SqlKv } from "./kv/sql.ts";
import type { KvStore } from "./kv/types.ts";
import { SqlMeshStore } from "./mesh/sql.ts";
import { LATEST_VERSION, type Dialect } from "./migrations.ts";
import { SqlResponseStore } from "./responses/sql.ts";
import type { ResponseStore } from "./responses/types.ts";
import type { RunLog } from "./runs/types.ts";
import type { SqlConnection } from "./sql.ts";
import { SqlTeamStore } from "./teams/sql.ts";
import type { Store } from "./types.ts";
import { SqlAccountStore } from "./users/sql.ts";
import { SqlWebhookStore } from "./webhooks/sql.ts";
import { SqlWorkflowStore } from "./workflows/sql.ts";
import { SqlTriggerStore } from "./triggers/sql.ts";
import { SqlScheduleStore } from "./schedules/sql.ts";

export abstract class SqlStore implements Store {
  abstract readonly driver: Dialect;
  abstract readonly runs: RunLog;
  abstract readonly budgets: BudgetSpend;
  readonly kv: KvStore;
  readonly agents: AgentRegistry;
  readonly responses: ResponseStore;
  readonly teams: SqlTeamStore;
  readonly apiKeys: SqlApiKeyStore;
  readonly idempotency: SqlIdempotencyStore;
  readonly webhooks: SqlWebhookStore;
  readonly consoleSessions: SqlConsoleSessionStore;
  readonly credentials: SqlCredentialStore;
  readonly benchmarks: SqlBenchmarkStore;
  readonly billing: SqlBillingStore;
  readonly accounts: SqlAccountStore;
  readonly mesh: SqlMeshStore;
  readonly workflows: SqlWorkflowStore;
  readonly triggers: SqlTriggerStore;
  readonly schedules: SqlScheduleStore;

  constructor(protected readonly sql: SqlConnection) {
    this.kv = new SqlKv(sql);
    this.agents = new SqlAgentRegistry(sql);
    this.responses = new SqlResponseStore(sql);
    this.teams = new SqlTeamStore(sql);
    this.apiKeys = new SqlApiKeyStore(sql);
    this.idempotency = new SqlIdempotencyStore(sql);
    this.webhooks = new SqlWebhookStore(sql);
    this.consoleSessions = new SqlConsoleSessionStore(sql);
    this.credentials = new SqlCredentialStore(sql);
    this.benchmarks = new SqlBenchmarkStore(sql);
    this.billing = new SqlBillingStore(sql);
    this.accounts = new SqlAccountStore(sql);
    this.mesh = new SqlMeshStore(sql);
    this.workflows = new SqlWorkflowStore(sql);
    this.triggers = new SqlTriggerStore(sql);
    this.schedules = new SqlScheduleStore(sql);
  }

  /** Driver-level health check, before the migration version check. */
  protected abstract storageIntact(): Promise<boolean>;
  abstract migrate(): Promise<void>;
  abstract close(): Promise<void>;

  async ping(): Promise<void> {
    // A read of a real table on the connection a key lookup uses (SQLite: its main one, so it answers
    // while the reader thread runs a long integrity_check).
    await this.sql.one("SELECT version FROM schema_migrations LIMIT 1", []);
  }

  async integrityCheck(): Promise<boolean> {
    if (!(await this.storageIntact())) return false;
    const [row] = await this.sql.all("SELECT MAX(version) AS version FROM schema_migrations", []);
    return Number(row.version) === LATEST_VERSION;
  }
}
