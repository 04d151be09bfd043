// The aggregates write Postgres' numbered parameters ($1, $2, …) on both drivers; on SQLite a `$2`
// written before `$1` must still bind the second value (SQLite numbers `$name` parameters by where
// they first appear). A statement whose placeholders are out of order, on a real SQLite store.
import { expect, test } from "bun:test";
import { openStore } from "../../src/store/open.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

test("placeholders out of order bind by number on SQLite, as on Postgres", async () => {
  const dir = mkdtempSync(join(tmpdir(), "relay-sqlite-params-"));
  const store = await openStore({ driver: "sqlite", path: join(dir, "relay.db") });
  try {
    await store.migrate();
    await store.teams.insertTeam({ id: "team_a", name: "A", plan: "free", created_at: "2026-01-01T00:00:00.000Z" });
    // setPlan is `UPDATE teams SET plan = $1 WHERE id = $2`: in order. Out of order, through the same connection:
    const sql = (store as unknown as { sql: { run(text: string, params: unknown[]): Promise<number>; one(text: string, params: unknown[]): Promise<Record<string, unknown> | undefined> } }).sql;
    expect(await sql.run("UPDATE teams SET name = $2 WHERE id = $1", ["team_a", "Renamed"])).toBe(1);
    expect(await sql.one("SELECT $2 AS second, $1 AS first, $2 AS again", ["one", "two"])).toEqual({ second: "two", first: "one", again: "two" });
    expect((await store.teams.getTeam("team_a"))?.name).toBe("Renamed");
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
