// Versioned schema history shared by both drivers. A migration is written
// once; only column types differ per dialect. Never edit an applied
// migration: append a new one.

import { HOSTED_MIGRATIONS } from "./migrations-hosted.ts";
import type { Store } from "./types.ts";

export type Dialect = Store["driver"];

export interface ColumnTypes {
  bigint: string;
  real: string;
  bool: string;
  json: string;
}

const TYPES: Record<Dialect, ColumnTypes> = {
  sqlite: { bigint: "INTEGER", real: "REAL", bool: "INTEGER", json: "TEXT" },
  postgres: { bigint: "BIGINT", real: "DOUBLE PRECISION", bool: "BOOLEAN", json: "JSONB" },
};

export interface Migration {
  version: number;
  name: string;
  statements(t: ColumnTypes): string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "runs",
    statements: (t) => [
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        ts ${t.bigint} NOT NULL,
        latency_ms ${t.real} NOT NULL,
        requested_model TEXT NOT NULL,
        routed_model TEXT NOT NULL,
        provider TEXT NOT NULL,
        strategy TEXT NOT NULL,
        tier TEXT,
        status INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        stream ${t.bool} NOT NULL,
        client_format TEXT NOT NULL,
        input_tokens ${t.bigint} NOT NULL,
        output_tokens ${t.bigint} NOT NULL,
        cache_read_tokens ${t.bigint} NOT NULL,
        cache_write_tokens ${t.bigint} NOT NULL,
        cost_usd ${t.real} NOT NULL,
        fallback_used ${t.bool} NOT NULL,
        attempts INTEGER NOT NULL,
        events ${t.json} NOT NULL,
        reasons ${t.json} NOT NULL,
        metadata ${t.json} NOT NULL,
        session_key TEXT,
        error TEXT,
        overhead_ms ${t.real} NOT NULL
      )`,
      "CREATE INDEX runs_ts ON runs (ts)",
      "CREATE INDEX runs_routed_model ON runs (routed_model)",
      "CREATE INDEX runs_provider ON runs (provider)",
      "CREATE INDEX runs_session_key ON runs (session_key)",
      "CREATE INDEX runs_status ON runs (status)",
    ],
  },
  {
    version: 2,
    name: "kv",
    statements: () => ["CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)"],
  },
  {
    version: 3,
    name: "agents",
    statements: () => [
      `CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        capability TEXT NOT NULL,
        description TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        protocol TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      "CREATE INDEX agents_capability ON agents (capability)",
    ],
  },
  {
    version: 4,
    name: "runs insert cost",
    // Every index is paid on each run insert. Routed model, provider and status
    // have a handful of values each, so their indexes never beat the ts index
    // that bounds every query; most runs have no session, so that index keeps
    // only those that do.
    statements: () => [
      "DROP INDEX IF EXISTS runs_routed_model",
      "DROP INDEX IF EXISTS runs_provider",
      "DROP INDEX IF EXISTS runs_status",
      "DROP INDEX IF EXISTS runs_session_key",
      "CREATE INDEX runs_session_key ON runs (session_key) WHERE session_key IS NOT NULL",
    ],
  },
  {
    version: 5,
    name: "responses",
    // Stored Responses API answers (src/store/responses/); ts is what retention prunes by.
    statements: (t) => [
      `CREATE TABLE responses (
        id TEXT PRIMARY KEY,
        ts ${t.bigint} NOT NULL,
        provider TEXT NOT NULL,
        input TEXT NOT NULL,
        response TEXT NOT NULL
      )`,
      "CREATE INDEX responses_ts ON responses (ts)",
    ],
  },
  ...HOSTED_MIGRATIONS,
];

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

export const CREATE_MIGRATIONS_TABLE =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)";

export const RECORD_MIGRATION = "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)";

/** Migrations not yet applied, oldest first, with SQL for `dialect`. */
export function pendingMigrations(
  applied: Iterable<number>,
  dialect: Dialect,
): { version: number; name: string; statements: string[] }[] {
  const done = new Set(applied);
  return MIGRATIONS.filter((m) => !done.has(m.version))
    .sort((a, b) => a.version - b.version)
    .map((m) => ({ version: m.version, name: m.name, statements: m.statements(TYPES[dialect]) }));
}
