// The two store drivers for a test file: SQLite in a temp folder, and Postgres in a schema of the
// file's own (dropped before each open and at the end). Postgres is skipped with a warning when
// unreachable, and required when CI=true.
import { afterAll } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openStore } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";

export const PG_URL = process.env.RELAY_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function postgresReachable(url = PG_URL): Promise<boolean> {
  const sql = new SQL(url, { max: 1, connectionTimeout: 3 });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.close();
  }
}

export interface Driver {
  name: "sqlite" | "postgres";
  available: boolean;
  open(): Promise<Store>;
}

async function dropSchema(schema: string): Promise<void> {
  const admin = new SQL(PG_URL, { max: 1 });
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.close();
}

/** Both drivers, named after `prefix`; cleaned up after the file's tests. */
export async function storeDrivers(prefix: string): Promise<Driver[]> {
  const pg = await postgresReachable();
  if (!pg) {
    if (process.env.CI === "true") throw new Error(`postgres unreachable at ${PG_URL}: CI requires it`);
    console.warn(`postgres unreachable at ${PG_URL}: skipping its half`);
  }
  const root = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const schema = `${prefix.replaceAll("-", "_")}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let n = 0;
  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    if (pg) await dropSchema(schema);
  });
  return [
    { name: "sqlite", available: true, open: () => openStore({ driver: "sqlite", path: path.join(root, `t${++n}`, "relay.db") }) },
    {
      name: "postgres",
      available: pg,
      open: async () => {
        await dropSchema(schema);
        return openStore({ driver: "postgres", url: PG_URL, schema });
      },
    },
  ];
}
