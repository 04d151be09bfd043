// The hosted service's migrations (versions 6 on: teams and keys, agents' teams and idempotency, runs'
// teams, webhooks, console sessions, credentials, accounts, billing, benchmarks, the mesh), kept
// apart from the proxy's own so neither list outgrows a file. Same rules: append, never edit.
import type { Migration } from "./migrations.ts";

export const HOSTED_MIGRATIONS: readonly Migration[] = [
  {
    version: 6,
    name: "teams and api keys",
    // The hosted API's tenants and their keys (src/store/teams/, src/store/keys/): a key is found by
    // the hash of its secret, a team's keys by team.
    statements: () => [
      `CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        plan TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams (id),
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      )`,
      "CREATE INDEX api_keys_team ON api_keys (team_id)",
    ],
  },
  {
    version: 7,
    name: "agent teams, cards and idempotency keys",
    // Agents belong to a team and may be public (src/store/agents/); a registered A2A card is kept
    // whole. agent_labels holds what discover's capability filter matches: the capability and the
    // card's skill ids and tags. idempotency_keys holds the first answer to a POST sent with an
    // Idempotency-Key, per team and key (src/store/idempotency/).
    statements: (t) => [
      "ALTER TABLE agents ADD COLUMN team_id TEXT",
      `ALTER TABLE agents ADD COLUMN is_public ${t.bool} NOT NULL DEFAULT FALSE`,
      "ALTER TABLE agents ADD COLUMN card TEXT",
      "CREATE INDEX agents_team ON agents (team_id)",
      "CREATE TABLE agent_labels (agent_id TEXT NOT NULL, label TEXT NOT NULL, PRIMARY KEY (agent_id, label))",
      "CREATE INDEX agent_labels_label ON agent_labels (label)",
      "INSERT INTO agent_labels (agent_id, label) SELECT id, capability FROM agents",
      `CREATE TABLE idempotency_keys (
        team_id TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (team_id, key)
      )`,
    ],
  },
  {
    version: 8,
    name: "runs team",
    // The hosted team a run belongs to (its request log, its plan's retention); NULL for the proxy's
    // own runs, which the partial index leaves out so they pay nothing more on insert.
    statements: () => [
      "ALTER TABLE runs ADD COLUMN team_id TEXT",
      "CREATE INDEX runs_team_ts ON runs (team_id, ts) WHERE team_id IS NOT NULL",
    ],
  },
  {
    version: 9,
    name: "webhooks",
    // Outbound webhooks (src/store/webhooks/): a team's endpoints, the deliveries of its events (the
    // dispatcher finds due ones by the partial index) and each delivery's attempts. Times in ms.
    statements: (t) => [
      `CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams (id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        description TEXT NOT NULL,
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_expires_at ${t.bigint},
        enabled ${t.bool} NOT NULL,
        created_at TEXT NOT NULL
      )`,
      "CREATE INDEX webhook_endpoints_team ON webhook_endpoints (team_id)",
      `CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        endpoint_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        next_attempt_at ${t.bigint},
        last_status INTEGER,
        last_error TEXT,
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      )`,
      "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
      "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at)",
      `CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        at ${t.bigint} NOT NULL,
        response_status INTEGER,
        error TEXT,
        duration_ms ${t.bigint} NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`,
    ],
  },
  {
    version: 10,
    name: "console sessions",
    // Signed-in browsers of the team console (src/store/console-sessions/), found by the hash of
    // their token; expired ones are deleted by expires_at.
    statements: (t) => [
      `CREATE TABLE console_sessions (
        token_hash TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at ${t.bigint} NOT NULL
      )`,
      "CREATE INDEX console_sessions_expires ON console_sessions (expires_at)",
    ],
  },
  {
    version: 11,
    name: "provider credentials",
    // A team's stored provider keys (src/store/credentials/), sealed under the master key; suffix is
    // the key's last characters, shown masked.
    statements: () => [
      `CREATE TABLE provider_credentials (
        team_id TEXT NOT NULL REFERENCES teams (id),
        provider TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        suffix TEXT NOT NULL,
        created_at TEXT NOT NULL,
        rotated_at TEXT,
        PRIMARY KEY (team_id, provider)
      )`,
    ],
  },
  {
    version: 12,
    name: "accounts",
    // Users of the hosted teams, their access tokens and invites, and the sign-in failure windows
    // (src/store/users/); teams gain whether Cloud features are on. Secrets are kept as SHA-256
    // hashes, passwords as argon2id PHC strings. users.team_id has no foreign key: a signup writes
    // its user first, so a taken email leaves no team behind.
    statements: (t) => [
      `ALTER TABLE teams ADD COLUMN cloud_enabled ${t.bool} NOT NULL DEFAULT FALSE`,
      `CREATE TABLE users (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        email TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        password_reset_at TEXT
      )`,
      "CREATE INDEX users_team ON users (team_id)",
      `CREATE TABLE access_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at ${t.bigint} NOT NULL,
        revoked_at TEXT
      )`,
      "CREATE INDEX access_tokens_user ON access_tokens (user_id)",
      "CREATE INDEX access_tokens_expires ON access_tokens (expires_at)",
      `CREATE TABLE account_invites (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at ${t.bigint} NOT NULL,
        used_at TEXT
      )`,
      `CREATE TABLE account_throttle (
        subject TEXT PRIMARY KEY,
        window_start ${t.bigint} NOT NULL,
        failures INTEGER NOT NULL
      )`,
    ],
  },
  {
    version: 13,
    name: "billing",
    // A team's Stripe customer and the subscription state the last applied webhook event left
    // (src/store/billing/): event_created (Unix seconds) refuses older events that arrive late.
    // billing_events holds the ids of handled events, so a redelivery changes nothing more.
    statements: (t) => [
      `CREATE TABLE billing_accounts (
        team_id TEXT PRIMARY KEY REFERENCES teams (id),
        stripe_customer_id TEXT NOT NULL UNIQUE,
        subscription_id TEXT,
        subscription_status TEXT,
        plan TEXT,
        event_created ${t.bigint},
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE billing_events (
        event_id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        created ${t.bigint} NOT NULL,
        team_id TEXT,
        outcome TEXT NOT NULL,
        processed_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 14,
    name: "benchmarks",
    // Benchmark runs and each call's result (src/store/benchmarks/). A runner takes a queued run, or a
    // running one whose lease ran out (its instance died), by a compare-and-set; the results' key
    // keeps a resumed run from recording a call twice. Times in ms.
    statements: (t) => [
      `CREATE TABLE benchmark_runs (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        models TEXT NOT NULL,
        set_name TEXT NOT NULL,
        prompt_set TEXT NOT NULL,
        max_tokens INTEGER NOT NULL,
        spend_cap_usd ${t.real} NOT NULL,
        spent_usd ${t.real} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        started_at ${t.bigint},
        finished_at ${t.bigint},
        lease_until ${t.bigint}
      )`,
      "CREATE INDEX benchmark_runs_team ON benchmark_runs (team_id, created_at)",
      "CREATE INDEX benchmark_runs_active ON benchmark_runs (created_at) WHERE status IN ('queued', 'running')",
      `CREATE TABLE benchmark_results (
        run_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_id TEXT NOT NULL,
        request_id TEXT NOT NULL,
        at ${t.bigint} NOT NULL,
        success ${t.bool} NOT NULL,
        status INTEGER NOT NULL,
        error TEXT,
        latency_ms ${t.real} NOT NULL,
        cost_usd ${t.real} NOT NULL,
        input_tokens ${t.bigint} NOT NULL,
        output_tokens ${t.bigint} NOT NULL,
        score ${t.real},
        output TEXT NOT NULL,
        PRIMARY KEY (run_id, model, prompt_id)
      )`,
      "CREATE INDEX benchmark_results_team_model ON benchmark_results (team_id, model, at)",
    ],
  },
  {
    version: 15,
    name: "mesh outcomes",
    // Anonymised routing outcomes proxies and SDKs report to the cloud (src/store/mesh/): no text,
    // only model, provider, tier, a coarse feature bucket and the outcome's class, latency and cost.
    // (team_id, batch_id, seq) makes a re-sent batch insert nothing twice; mesh_batches records
    // each batch once per kind (outcomes, logs), so a re-send is answered as a duplicate.
    statements: (t) => [
      `CREATE TABLE mesh_outcomes (
        team_id TEXT NOT NULL,
        batch_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        ts ${t.bigint} NOT NULL,
        model TEXT NOT NULL,
        provider TEXT NOT NULL,
        tier TEXT,
        bucket TEXT NOT NULL,
        class TEXT NOT NULL,
        latency_ms ${t.real} NOT NULL,
        cost_usd ${t.real} NOT NULL,
        escalations INTEGER NOT NULL,
        PRIMARY KEY (team_id, batch_id, seq)
      )`,
      "CREATE INDEX mesh_outcomes_ts ON mesh_outcomes (ts)",
      `CREATE TABLE mesh_batches (
        team_id TEXT NOT NULL,
        batch_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        items INTEGER NOT NULL,
        received_at ${t.bigint} NOT NULL,
        PRIMARY KEY (team_id, kind, batch_id)
      )`,
    ],
  },
  {
    version: 16,
    name: "workflows",
    // Deployed workflows in versions, their durable runs and each run's step results
    // (src/store/workflows/). A runner takes a queued run, or a running one whose lease ran out (its
    // instance died), by a compare-and-set; a step's key keeps a resumed run from storing it twice. Times in ms.
    statements: (t) => [
      `CREATE TABLE workflows (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        definition TEXT NOT NULL,
        digest TEXT NOT NULL,
        created_at ${t.bigint} NOT NULL,
        UNIQUE (team_id, name, version),
        UNIQUE (team_id, name, digest)
      )`,
      `CREATE TABLE workflow_runs (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        workflow_id TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        input TEXT NOT NULL,
        result TEXT,
        created_at ${t.bigint} NOT NULL,
        started_at ${t.bigint},
        finished_at ${t.bigint},
        lease_until ${t.bigint}
      )`,
      "CREATE INDEX workflow_runs_team ON workflow_runs (team_id, created_at)",
      "CREATE INDEX workflow_runs_active ON workflow_runs (created_at) WHERE status IN ('queued', 'running')",
      `CREATE TABLE workflow_steps (
        run_id TEXT NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT NOT NULL,
        at ${t.bigint} NOT NULL,
        PRIMARY KEY (run_id, name)
      )`,
    ],
  },
  {
    version: 17,
    name: "workflow triggers",
    // Webhook triggers of deployed workflows, one per (team, path), and the deliveries signed
    // triggers saw within the timestamp tolerance, so a replay is refused on every instance
    // (src/store/triggers/). Times in ms.
    statements: (t) => [
      `CREATE TABLE workflow_triggers (
        team_id TEXT NOT NULL,
        path TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        config TEXT NOT NULL,
        created_at ${t.bigint} NOT NULL,
        PRIMARY KEY (team_id, path)
      )`,
      "CREATE INDEX workflow_triggers_workflow ON workflow_triggers (team_id, workflow_name)",
      `CREATE TABLE trigger_deliveries (
        team_id TEXT NOT NULL,
        path TEXT NOT NULL,
        delivery TEXT NOT NULL,
        expires_at ${t.bigint} NOT NULL,
        PRIMARY KEY (team_id, path, delivery)
      )`,
      "CREATE INDEX trigger_deliveries_expiry ON trigger_deliveries (expires_at)",
    ],
  },
  {
    version: 18,
    name: "workflow schedules",
    // Deployed workflows run on a cron expression in a time zone (src/store/schedules/). A paused
    // schedule has no next_fire_at; a firing advances it by a compare-and-set. Times in ms.
    statements: (t) => [
      `CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        input TEXT NOT NULL,
        paused ${t.bool} NOT NULL,
        next_fire_at ${t.bigint},
        last_fired_at ${t.bigint},
        last_run_id TEXT,
        skipped_firings INTEGER NOT NULL,
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      )`,
      "CREATE INDEX schedules_team ON schedules (team_id, created_at)",
      "CREATE INDEX schedules_due ON schedules (next_fire_at) WHERE next_fire_at IS NOT NULL",
    ],
  },
];
