// Store factory: picks the driver and brings the schema up to date.

import { join } from "node:path";
import { dataDir } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { PostgresStore } from "./postgres.ts";
import { SqliteStore } from "./sqlite.ts";
import type { Store } from "./types.ts";

export type StoreOptions =
  /** onError: background failures that lose nothing (a WAL checkpoint's); default: stderr. */
  | { driver: "sqlite"; path: string; onError?: (message: string) => void }
  | { driver: "postgres"; url: string; schema?: string };

export async function openStore(opts: StoreOptions): Promise<Store> {
  const store = opts.driver === "sqlite" ? new SqliteStore(opts.path, opts.onError) : new PostgresStore(opts.url, opts.schema);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** The store a configuration names: Postgres at store.postgresUrl, else SQLite in the data directory. */
export function openConfiguredStore(c: Config, env: Record<string, string | undefined>, onError?: (message: string) => void): Promise<Store> {
  if (c.store.driver !== "postgres") return openStore({ driver: "sqlite", path: join(dataDir(c, env), "relay.db"), onError });
  if (!c.store.postgresUrl) throw new Error("store.driver is postgres but store.postgresUrl (env RELAY_POSTGRES_URL) is not set");
  return openStore({ driver: "postgres", url: c.store.postgresUrl });
}
