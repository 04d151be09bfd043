// The SQLite store's files are private (issue 34): the folder it creates is
// 0700, the database and its WAL, shared-memory and run-log journal files 0600,
// whatever the umask; a database an older Relay left readable is narrowed.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite.ts";

const mode = (p: string) => statSync(p).mode & 0o777;
let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "relay-modes-"));
  // The most permissive umask: any mode Relay does not set itself shows as world-readable.
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const aRun = (id: string) => ({
  id, ts: Date.now(), latencyMs: 1, requestedModel: "m", routedModel: "m", provider: "p", strategy: "s", status: 200, outcome: "ok" as const,
  stream: false, clientFormat: "openai" as const, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0,
  fallbackUsed: false, attempts: 1, events: [], reasons: [], metadata: {}, overheadMs: 0,
});

test("a new store: folders 0700, database, WAL, shared memory and journal 0600", async () => {
  const path = join(dir, "a", "b", "relay.db");
  const store = new SqliteStore(path);
  await store.migrate();
  await store.runs.insertRuns([aRun("run_1")]);
  const files = readdirSync(join(dir, "a", "b"));
  expect(files).toEqual(expect.arrayContaining(["relay.db", "relay.db-wal", "relay.db-shm"]));
  expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true);
  const modes = Object.fromEntries(files.map((f) => [f, mode(join(dir, "a", "b", f)).toString(8)]));
  expect(modes).toEqual(Object.fromEntries(files.map((f) => [f, "600"])));
  expect([mode(join(dir, "a")), mode(join(dir, "a", "b"))].map((m) => m.toString(8))).toEqual(["700", "700"]);
  await store.close();
});

test("a database and WAL an older Relay left world-readable are narrowed; an existing folder keeps its mode", async () => {
  const folder = join(dir, "shared");
  mkdirSync(folder, { mode: 0o755 });
  const path = join(folder, "relay.db");
  await new SqliteStore(path).close();
  chmodSync(path, 0o644);
  writeFileSync(`${path}-wal`, "");
  chmodSync(`${path}-wal`, 0o664);
  const store = new SqliteStore(path);
  expect([mode(path), mode(`${path}-wal`)].map((m) => m.toString(8))).toEqual(["600", "600"]);
  expect(mode(folder).toString(8)).toBe("755");
  await store.close();
});
