// Request-log retention (spec §8; src/core/tenancy/retention.ts) on SQLite and Postgres: runs of a
// free, a maker and a pro team and runs of no team, at ages either side of each limit (7, 30, 90
// days; telemetry.retentionDays, 30 by default, for runs of no team). Relay.prune, the hourly job,
// deletes exactly those past their limit on relay.clock (a ManualClock moved by the test); a plan
// changed between two passes is honoured by the second; the pro team's log API shows what is left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import type { PlanName } from "../../src/core/tenancy/plans.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startWorld, type World } from "../proxy/world.ts";
import { sampleRun } from "../helpers/run-record.ts";
import { postgresDatabase } from "./pg-database.ts";

const DAY = 86_400_000;
/** Ages are whole days plus this, so no run sits exactly on a limit. */
const HOUR = 3_600_000;

describe.each(["sqlite", "postgres"] as const)("log retention on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  const teams: Partial<Record<PlanName, { id: string; secret: string }>> = {};

  const store = () => w.relay.relay.store;
  const remaining = async () => (await store().runs.listRuns({ limit: 100, offset: 0 })).runs.map((r) => r.id).sort();
  /** A run `days` (and an hour) old by the relay's clock, of the team on `plan` or of none. */
  const aged = (plan: PlanName | undefined, days: number) =>
    sampleRun({ id: `req_${plan ?? "none"}_${days}d`, ts: w.clock.now() - days * DAY - HOUR, ...(plan ? { teamId: teams[plan]!.id } : {}) });

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_retention");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
    for (const plan of ["free", "maker", "pro"] as const) {
      const { team, secret } = await createTeam(store(), `${plan} team`, plan);
      teams[plan] = { id: team.id, secret };
    }
    // Relay.create starts a pass without awaiting it; a year on, whenever it ends, it is too early to
    // delete any run of this test (each is at most 91 days older than the clock).
    w.clock.advance(365 * DAY);
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("each team's runs are kept for its plan's days, runs of no team for telemetry.retentionDays; a plan change counts at the next pass", async () => {
    expect(w.relay.relay.config().telemetry.retentionDays).toBe(30);
    await store().runs.insertRuns([
      aged("free", 6), aged("free", 7),
      aged("maker", 29), aged("maker", 30),
      aged("pro", 40), aged("pro", 89), aged("pro", 90),
      aged(undefined, 29), aged(undefined, 30),
    ]);

    expect(await w.relay.relay.prune()).toBe(4);
    expect(await remaining()).toEqual(["req_free_6d", "req_maker_29d", "req_none_29d", "req_pro_40d", "req_pro_89d"]);

    // The maker team moves up to pro and the pro team down to free; two days pass.
    expect(await store().teams.setPlan(teams.maker!.id, "pro")).toBe(true);
    expect(await store().teams.setPlan(teams.pro!.id, "free")).toBe(true);
    w.clock.advance(2 * DAY);

    // Now free 8 days (past 7), maker-now-pro 31 (within 90), pro-now-free 42 and 91 (past 7), none 31 (past 30).
    expect(await w.relay.relay.prune()).toBe(4);
    expect(await remaining()).toEqual(["req_maker_29d"]);
    expect(await w.relay.relay.prune()).toBe(0);
  });

  test("the log API shows what retention left: the team on pro now sees its one run", async () => {
    const res = await fetch(`${cloud.url}/api/logs`, { headers: { "x-api-key": teams.maker!.secret } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string; timestamp: string }[]; total: number };
    expect(body.total).toBe(1);
    expect(body.data.map((r) => r.id)).toEqual(["req_maker_29d"]);
    // An hour past 29 days before the clock's start (the run was made before it moved).
    expect(Date.parse(body.data[0]!.timestamp)).toBe(w.clock.now() - 2 * DAY - 29 * DAY - HOUR);
  });
});
