// `relay cloud teams …` and `relay cloud keys …` as the real CLI process, on SQLite and on Postgres:
// a team's first key printed once, plans, several keys, rotation and revocation, --json, usage
// errors; then the keys it printed used against the `relay cloud` listener on the same store.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { listen } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "../cloud/pg-database.ts";
import { FROM_SOURCE, childEnv, run, tempDir } from "./relay-process.ts";

/** Each test runs the CLI as a process a dozen times (about half a second each on Postgres, more on a busy machine). */
const CLI_TIMEOUT_MS = 30_000;

describe.each(["sqlite", "postgres"] as const)("relay cloud teams/keys on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let home: string;
  const relay = (...args: string[]) => run([...FROM_SOURCE, "cloud", ...args], { env: childEnv(home, db ? { RELAY_POSTGRES_URL: db.url } : {}) });
  const json = async (...args: string[]) => {
    const r = await relay(...args, "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as any;
  };

  beforeAll(async () => {
    home = tempDir("cloud-admin");
    if (driver === "postgres") db = await postgresDatabase("relay_cli");
  });
  afterAll(async () => {
    rmSync(home, { recursive: true, force: true });
    await db?.drop();
  });

  test("teams create prints the team and its first standard key once; keys list never shows it", async () => {
    const r = await relay("teams", "create", "--name", "Acme");
    expect(r.code).toBe(0);
    const secret = /api key, shown this once \(send it as x-api-key\): (rk_live_[\w-]{43})\n/.exec(r.stdout)?.[1];
    expect(secret).toBeDefined();
    const team = /^team (team_[0-9a-f]{24}) "Acme" on the free plan$/m.exec(r.stdout)?.[1];
    expect(team).toBeDefined();
    const listed = await relay("keys", "list", "--team", team!);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(secret!.slice(0, 12));
    expect(listed.stdout).not.toContain(secret!.slice(12));
    const { keys } = await json("keys", "list", "--team", team!);
    expect(keys).toEqual([expect.objectContaining({ team_id: team, type: "standard", name: "default", revoked_at: null })]);
    expect(keys[0].hash).toBeUndefined();
  }, CLI_TIMEOUT_MS);

  test("plans, several keys, rotation without a gap, revocation; the printed keys work on the cloud listener", async () => {
    const made = await json("teams", "create", "--name", "Beta", "--plan", "pro");
    expect(made.team).toMatchObject({ name: "Beta", plan: "pro" });
    expect(made.api_key).toMatch(/^rk_live_/);
    const teamId = made.team.id;
    expect((await json("teams", "set-plan", teamId, "maker")).team.plan).toBe("maker");
    expect((await json("teams", "list")).teams).toContainEqual(expect.objectContaining({ id: teamId, plan: "maker" }));

    const ro = await json("keys", "create", "--team", teamId, "--type", "read-only", "--name", "dash");
    expect(ro.key).toMatchObject({ type: "read_only", name: "dash", team_id: teamId });
    const rotation = await relay("keys", "rotate", made.key.id);
    expect(rotation.code).toBe(0);
    expect(rotation.stderr).toContain(`relay cloud keys revoke ${made.key.id}`);
    const rotatedSecret = /(rk_live_[\w-]{43})/.exec(rotation.stdout)![1]!;
    const { keys } = await json("keys", "list", "--team", teamId);
    expect(keys.map((k: any) => k.type).sort()).toEqual(["read_only", "standard", "standard"]);

    // The same store served by `relay cloud` (in this process): old and new keys both work.
    const r = await startRelay({ home, config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    const cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
    const status = (key: string) => fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": key } }).then((res) => res.status);
    try {
      expect(await status(made.api_key)).toBe(200);
      expect(await status(rotatedSecret)).toBe(200);
      expect(await status(ro.api_key)).toBe(200);
      const revoked = await json("keys", "revoke", made.key.id);
      expect(revoked.key.revoked_at).toEqual(expect.any(String));
      expect(await status(made.api_key)).toBe(401);
      expect(await status(rotatedSecret)).toBe(200);
    } finally {
      await cloud.stop(100);
      await r.stop();
    }
    const again = await relay("keys", "rotate", made.key.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is revoked");
  }, CLI_TIMEOUT_MS);

  test("usage errors exit 2 with one line; unknown teams and keys exit 1", async () => {
    const cases: [string[], number, string][] = [
      [["teams", "create"], 2, "--name is required"],
      [["teams", "create", "--name", "X", "--plan", "gold"], 2, 'expected one of free, maker, pro, got "gold"'],
      [["keys", "create", "--team", "team_x", "--type", "admin"], 2, "expected standard or read-only"],
      [["keys", "frob"], 2, 'unknown subcommand "frob"'],
      [["keys", "create", "--team", "team_missing"], 1, "no team team_missing"],
      [["teams", "set-plan", "team_missing", "pro"], 1, "no team team_missing"],
      [["keys", "revoke", "key_missing"], 1, "no key key_missing"],
    ];
    for (const [args, code, message] of cases) {
      const r = await relay(...args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe("");
    }
  }, CLI_TIMEOUT_MS);
});
