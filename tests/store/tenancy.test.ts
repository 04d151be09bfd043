// Teams and API keys of the hosted API (src/store/teams/, src/store/keys/) on both drivers: round
// trips, plans, several keys per team, lookup by hash, revocation, and the helpers that mint keys.
// Postgres is skipped with a warning when unreachable, required when CI=true.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { KEY_PREFIX, createKey, createTeam, hashKey, rotateKey } from "../../src/core/tenancy/api-keys.ts";
import { scrubSecrets } from "../../src/core/secrets/known.ts";
import type { Store } from "../../src/store/types.ts";
import { storeDrivers } from "./drivers.ts";

const DRIVERS = await storeDrivers("relay-tenancy");

for (const driver of DRIVERS) {
  describe.skipIf(!driver.available)(driver.name, () => {
    let store: Store;
    beforeEach(async () => {
      store = await driver.open();
    });
    afterEach(() => store.close());

    test("a team is kept with its plan, listed oldest first, and its plan changes", async () => {
      await store.teams.insertTeam({ id: "team_b", name: "Beta", plan: "pro", created_at: "2026-01-02T00:00:00.000Z" });
      await store.teams.insertTeam({ id: "team_a", name: "Ünïcode ✓", plan: "free", created_at: "2026-01-01T00:00:00.000Z" });
      expect(await store.teams.getTeam("team_a")).toEqual({ id: "team_a", name: "Ünïcode ✓", plan: "free", created_at: "2026-01-01T00:00:00.000Z" });
      expect((await store.teams.listTeams()).map((t) => t.id)).toEqual(["team_a", "team_b"]);
      expect(await store.teams.setPlan("team_a", "maker")).toBe(true);
      expect((await store.teams.getTeam("team_a"))!.plan).toBe("maker");
      expect(await store.teams.setPlan("team_missing", "pro")).toBe(false);
      expect(await store.teams.getTeam("team_missing")).toBeUndefined();
    });

    test("a new team comes with one standard key, stored as a hash only", async () => {
      const { team, key, secret } = await createTeam(store, "Acme", "free");
      expect(team.id).toMatch(/^team_[0-9a-f]{24}$/);
      expect(key).toMatchObject({ team_id: team.id, type: "standard", revoked_at: null });
      expect(key.id).toMatch(/^key_[0-9a-f]{24}$/);
      expect(secret).toMatch(new RegExp(`^${KEY_PREFIX}[A-Za-z0-9_-]{43}$`));
      expect(key.prefix).toBe(secret.slice(0, 12));
      expect(key.hash).toBe(hashKey(secret));
      expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
      const stored = await store.apiKeys.getKey(key.id);
      expect(stored).toEqual(key);
      expect(JSON.stringify(stored)).not.toContain(secret.slice(KEY_PREFIX.length));
      expect(await store.apiKeys.keyAndTeamByHash(key.hash)).toEqual({ key, team });
      expect(await store.apiKeys.keyAndTeamByHash(hashKey(`${secret}x`))).toBeUndefined();
    });

    test("several keys per team; rotation leaves the old one valid; revocation is recorded once", async () => {
      const { team, key: first } = await createTeam(store, "Acme", "maker");
      const other = await createTeam(store, "Other", "free");
      const ro = await createKey(store.apiKeys, team.id, "read_only", "dashboards");
      const rotated = await rotateKey(store.apiKeys, first);
      expect(rotated.key).toMatchObject({ team_id: team.id, type: "standard" });
      expect(rotated.secret).not.toBe(ro.secret);
      const ids = (await store.apiKeys.listKeys(team.id)).map((k) => k.id);
      expect(ids.sort()).toEqual([first.id, ro.key.id, rotated.key.id].sort());
      expect((await store.apiKeys.listKeys(other.team.id)).map((k) => k.id)).toEqual([other.key.id]);
      expect((await store.apiKeys.getKey(first.id))!.revoked_at).toBeNull();

      expect(await store.apiKeys.revokeKey(first.id, "2026-02-01T00:00:00.000Z")).toBe(true);
      expect(await store.apiKeys.revokeKey(first.id, "2026-03-01T00:00:00.000Z")).toBe(false);
      expect((await store.apiKeys.keyAndTeamByHash(first.hash))!.key.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect(await store.apiKeys.revokeKey("key_missing", "2026-02-01T00:00:00.000Z")).toBe(false);
      await expect(rotateKey(store.apiKeys, (await store.apiKeys.getKey(first.id))!)).rejects.toMatchObject({ status: 409, code: "key_revoked" });
    });

    test("two keys cannot share a hash", async () => {
      const { key } = await createTeam(store, "Acme", "free");
      await expect(store.apiKeys.insertKey({ ...key, id: "key_dup" })).rejects.toThrow();
    });
  });
}

test("a whole key is scrubbed from logs and CLI output; its display prefix is not", () => {
  const secret = `${KEY_PREFIX}u-468fxyFiahGFBhOWpH9pDq4EejtpwLkTC9W-Jzzdo`;
  expect(scrubSecrets(`x-api-key: ${secret} failed`)).toBe("x-api-key: [redacted] failed");
  expect(scrubSecrets("key rk_live_u-46 of team_1")).toBe("key rk_live_u-46 of team_1");
});
