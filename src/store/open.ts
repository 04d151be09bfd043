// Store factory: picks the driver and brings the schema up to date.

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
