// A fresh Postgres database per test file, so Relay's public schema (and its migrations) are its own.
import { SQL } from "bun";

export const PG_ADMIN_URL = process.env.RELAY_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function postgresDatabase(prefix: string) {
  const admin = new SQL(PG_ADMIN_URL, { max: 1 });
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
