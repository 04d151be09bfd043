// Workflow schedules (issue 39 item 5) over real HTTP on the `relay cloud` listener, on SQLite and on
// Postgres, against the fake vendor, with the Relay's ManualClock moved to each instant: the exact
// firing instants across daylight-saving changes (America/New_York's spring-forward and fall-back,
// Europe/Berlin's fall-back), pause and resume, catch-up after downtime, overlap, and the routes'
// validation and keys. Then two Relays on one Postgres database, each with its cloud runners, racing
// through seven firings of an interval schedule across a fall-back: each firing's run exists once.
// (A copy of each answer is checked with toMatchObject: Bun writes its asymmetric matchers into the object it checks.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/limits/clock.ts";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { firingRunId } from "../../src/core/workflows/cloud/scheduler.ts";
import type { Relay } from "../../src/relay.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { eventually, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "../cloud/pg-database.ts";

type Json = Record<string, any>;
const NIGHTLY = { name: "nightly", steps: [{ name: "report", model: "openai:gpt-4o-mini", userPrompt: "Report on {{input.topic}}" }] };
const at = (iso: string) => Date.parse(iso);

/** Requests to a cloud listener with a key. */
function client(url: () => string) {
  return (method: string, path: string, key: string | undefined, body?: unknown) =>
    fetch(`${url()}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-api-key": key }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** The run once it ended (the runner takes it at once). */
const ended = (relay: Relay, id: string) =>
  eventually(async () => {
    const run = await relay.store.workflows.getRun(id);
    return run && run.status !== "queued" && run.status !== "running" ? run : undefined;
  }, `workflow run ${id} to end`, 15_000);

describe.each(["sqlite", "postgres"] as const)("schedules on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let relay: Relay;
  let teamA: { id: string; key: string; readOnly: string };
  let teamB: { key: string };
  let teamOff: { key: string };
  const call = client(() => cloud.url);

  async function created(body: Json): Promise<Json> {
    const res = await call("POST", "/api/v1/schedules", teamA.key, body);
    if (res.status !== 201) throw new Error(`POST /api/v1/schedules: ${res.status} ${await res.text()}`);
    return ((await res.json()) as Json).schedule;
  }
  const read = async (id: string): Promise<Json> => ((await (await call("GET", `/api/v1/schedules/${id}`, teamA.key)).json()) as Json).schedule;
  const patch = async (id: string, body: Json): Promise<Json> => {
    const res = await call("PATCH", `/api/v1/schedules/${id}`, teamA.key, body);
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).schedule;
  };
  const remove = async (id: string) => expect((await call("DELETE", `/api/v1/schedules/${id}`, teamA.key)).status).toBe(200);
  /** Moves the clock to `iso` and fires what is due then. */
  async function moveTo(iso: string): Promise<void> {
    w.clock.set(at(iso));
    await relay.scheduler.fireDue();
  }
  const teamRuns = async () => (await relay.store.workflows.listRuns(teamA.id, 100, 0)).runs;
  async function expectError(res: Response, status: number, code: string, parameter?: string) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(structuredClone(body)).toMatchObject({ error: { code, message: expect.any(String) }, request_id: expect.stringMatching(/^req_/) });
    if (parameter !== undefined) expect(body.error.details?.parameter).toBe(parameter);
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_schedules");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    relay = w.relay.relay;
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const a = await createTeam(relay.store, "Schedules A", "pro");
    teamA = { id: a.team.id, key: a.secret, readOnly: (await createKey(relay.store.apiKeys, a.team.id, "read_only", "viewer")).secret };
    const b = await createTeam(relay.store, "Schedules B", "pro");
    teamB = { key: b.secret };
    const off = await createTeam(relay.store, "Schedules off", "pro");
    teamOff = { key: off.secret };
    for (const t of [a, b]) await relay.store.accounts.setCloudEnabled(t.team.id, true);
    for (const key of [teamA.key, teamOff.key]) expect([200, 201]).toContain((await call("POST", "/api/v1/workflows", key, NIGHTLY)).status);
    w.openai.setDefault((req) => ({ text: `report: ${String(req.json?.messages?.at(-1)?.content)}` }));
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("a 02:30 daily schedule in New York: on spring-forward day it fires at 03:00 EDT, the first time after the gap", async () => {
    w.clock.set(at("2027-03-13T12:00:00Z"));
    const s = await created({ workflow: "nightly", cron: "30 2 * * *", timezone: "America/New_York", input: { topic: "sales" } });
    expect(structuredClone(s)).toMatchObject({
      id: expect.stringMatching(/^sch_/), object: "schedule", workflow: "nightly", cron: "30 2 * * *", timezone: "America/New_York",
      input: { topic: "sales" }, paused: false, next_fire_at: "2027-03-14T07:00:00.000Z", last_fired_at: null, last_run_id: null, skipped_firings: 0,
    });

    await moveTo("2027-03-14T06:59:59.999Z");
    expect(await teamRuns()).toHaveLength(0);
    await moveTo("2027-03-14T07:00:00.000Z");
    const fired = await read(s.id);
    expect(fired).toMatchObject({ last_fired_at: "2027-03-14T07:00:00.000Z", next_fire_at: "2027-03-15T06:30:00.000Z", last_run_id: firingRunId(s.id, at("2027-03-14T07:00:00Z")) });
    const run = await ended(relay, fired.last_run_id);
    expect(run).toMatchObject({ status: "succeeded", workflow_name: "nightly", input: { topic: "sales" } });
    expect(w.openai.requests.at(-1)?.json?.messages?.at(-1)?.content).toBe("Report on sales");

    // The day after, 02:30 EDT again.
    await moveTo("2027-03-15T06:30:00.000Z");
    expect(await read(s.id)).toMatchObject({ last_fired_at: "2027-03-15T06:30:00.000Z", next_fire_at: "2027-03-16T06:30:00.000Z" });
    await ended(relay, (await read(s.id)).last_run_id);
    expect(await teamRuns()).toHaveLength(2);
    await remove(s.id);
  });

  test("on fall-back day a repeated time fires once, at its first occurrence; 02:30 in New York (not repeated) once, in EST", async () => {
    // Europe/Berlin repeats 02:00–02:59 on 2027-10-31: 02:30 CEST (00:30Z) fires, 02:30 CET (01:30Z) does not.
    w.clock.set(at("2027-10-30T12:00:00Z"));
    const berlin = await created({ workflow: "nightly", cron: "30 2 * * *", timezone: "Europe/Berlin", input: { topic: "berlin" } });
    expect(berlin.next_fire_at).toBe("2027-10-31T00:30:00.000Z");
    await moveTo("2027-10-31T00:30:00Z");
    await ended(relay, (await read(berlin.id)).last_run_id);
    expect(await read(berlin.id)).toMatchObject({ last_fired_at: "2027-10-31T00:30:00.000Z", next_fire_at: "2027-11-01T01:30:00.000Z" });
    const before = (await teamRuns()).length;
    await moveTo("2027-10-31T01:30:00Z");
    expect(await teamRuns()).toHaveLength(before);
    await remove(berlin.id);

    // New York repeats 01:00–01:59 on 2027-11-07: 01:30 EDT (05:30Z) fires, 01:30 EST (06:30Z) does not.
    w.clock.set(at("2027-11-06T12:00:00Z"));
    const ny = await created({ workflow: "nightly", cron: "30 1 * * *", timezone: "America/New_York", input: { topic: "ny" } });
    expect(ny.next_fire_at).toBe("2027-11-07T05:30:00.000Z");
    await moveTo("2027-11-07T05:30:00Z");
    await ended(relay, (await read(ny.id)).last_run_id);
    expect(await read(ny.id)).toMatchObject({ last_fired_at: "2027-11-07T05:30:00.000Z", next_fire_at: "2027-11-08T06:30:00.000Z" });
    const after = (await teamRuns()).length;
    await moveTo("2027-11-07T06:30:00Z");
    expect(await teamRuns()).toHaveLength(after);

    // Changed to 02:30: that day's 02:30 is EST (07:30Z), once.
    w.clock.set(at("2027-11-07T06:31:00Z"));
    expect((await patch(ny.id, { cron: "30 2 * * *" })).next_fire_at).toBe("2027-11-07T07:30:00.000Z");
    await moveTo("2027-11-07T07:30:00Z");
    await ended(relay, (await read(ny.id)).last_run_id);
    expect(await read(ny.id)).toMatchObject({ last_fired_at: "2027-11-07T07:30:00.000Z", next_fire_at: "2027-11-08T07:30:00.000Z" });
    expect(await teamRuns()).toHaveLength(after + 1);
    await remove(ny.id);
  });

  test("pause and resume: no firing while paused; resumed, it goes on from now; a change of input reaches the next run", async () => {
    w.clock.set(at("2027-12-01T10:10:00Z"));
    const s = await created({ workflow: "nightly", cron: "0 * * * *", input: { topic: "hourly" } });
    expect(s).toMatchObject({ timezone: "UTC", next_fire_at: "2027-12-01T11:00:00.000Z" });
    expect(await patch(s.id, { paused: true })).toMatchObject({ paused: true, next_fire_at: null });
    const before = (await teamRuns()).length;
    await moveTo("2027-12-01T13:30:00Z");
    expect(await teamRuns()).toHaveLength(before);

    expect(await patch(s.id, { paused: false, input: { topic: "resumed" } })).toMatchObject({ paused: false, next_fire_at: "2027-12-01T14:00:00.000Z", input: { topic: "resumed" } });
    await moveTo("2027-12-01T14:00:00Z");
    const run = await ended(relay, (await read(s.id)).last_run_id);
    expect(run.input).toEqual({ topic: "resumed" });
    expect(await teamRuns()).toHaveLength(before + 1);
    await remove(s.id);
  });

  test("catch-up: after downtime a schedule fires once for the instants it missed, then goes on from now", async () => {
    w.clock.set(at("2027-12-02T00:00:00Z"));
    const s = await created({ workflow: "nightly", cron: "0 * * * *", input: { topic: "missed" } });
    const before = (await teamRuns()).length;
    // Five hourly instants pass with no poll (the instances were down).
    await moveTo("2027-12-02T05:20:00Z");
    const fired = await read(s.id);
    expect(fired).toMatchObject({ last_fired_at: "2027-12-02T01:00:00.000Z", next_fire_at: "2027-12-02T06:00:00.000Z", skipped_firings: 0 });
    expect((await ended(relay, fired.last_run_id)).status).toBe("succeeded");
    await relay.scheduler.fireDue();
    expect(await teamRuns()).toHaveLength(before + 1);
    await remove(s.id);
  });

  test("overlap: a firing while the previous run still runs starts no run and is counted as skipped", async () => {
    w.clock.set(at("2027-12-03T00:00:00Z"));
    const s = await created({ workflow: "nightly", cron: "*/10 * * * *", input: { topic: "slow" } });
    w.openai.enqueue({ text: "slow", latencyMs: 120_000 });
    await moveTo("2027-12-03T00:10:00Z");
    const first = (await read(s.id)).last_run_id;
    await eventually(async () => ((await relay.store.workflows.getRun(first))?.status === "running" ? true : undefined), "the first run to start");
    const before = (await teamRuns()).length;
    await moveTo("2027-12-03T00:20:00Z");
    expect(await read(s.id)).toMatchObject({ last_run_id: first, last_fired_at: "2027-12-03T00:10:00.000Z", skipped_firings: 1, next_fire_at: "2027-12-03T00:30:00.000Z" });
    expect(await teamRuns()).toHaveLength(before);
    // Paused so nothing else fires; the slow run ends with the Relay.
    await patch(s.id, { paused: true });
  });

  test("routes: list, read, change, delete; each invalid field a 400 naming it", async () => {
    w.clock.set(at("2027-12-04T00:00:00Z"));
    const s = await created({ workflow: "nightly", cron: "15 6 * * 1-5", timezone: "Asia/Tokyo", input: [1, 2] });
    const listed = (await (await call("GET", "/api/v1/schedules?limit=100", teamA.readOnly)).json()) as Json;
    expect(listed.data.map((x: Json) => x.id)).toContain(s.id);
    expect(listed).toMatchObject({ limit: 100, offset: 0, total: listed.data.length });
    expect(await read(s.id)).toEqual(s);

    const post = (body: unknown) => call("POST", "/api/v1/schedules", teamA.key, body);
    await expectError(await post({ cron: "0 * * * *" }), 400, "invalid_request", "workflow");
    await expectError(await post({ workflow: "nope", cron: "0 * * * *" }), 400, "invalid_request", "workflow");
    await expectError(await post({ workflow: "nightly" }), 400, "invalid_request", "cron");
    await expectError(await post({ workflow: "nightly", cron: "61 * * * *" }), 400, "invalid_request", "cron");
    await expectError(await post({ workflow: "nightly", cron: "* * *" }), 400, "invalid_request", "cron");
    await expectError(await post({ workflow: "nightly", cron: "0 0 31 2 *" }), 400, "invalid_request", "cron");
    await expectError(await post({ workflow: "nightly", cron: "0 * * * *", timezone: "Mars/Olympus" }), 400, "invalid_request", "timezone");
    await expectError(await post({ workflow: "nightly", cron: "0 * * * *", paused: "yes" }), 400, "invalid_request", "paused");
    await expectError(await call("PATCH", `/api/v1/schedules/${s.id}`, teamA.key, { cron: "every day" }), 400, "invalid_request", "cron");
    await expectError(await call("PATCH", `/api/v1/schedules/${s.id}`, teamA.key, { timezone: "Nowhere" }), 400, "invalid_request", "timezone");
    expect(await read(s.id)).toEqual(s);

    const changed = await patch(s.id, { timezone: "UTC" });
    expect(changed).toMatchObject({ timezone: "UTC", next_fire_at: "2027-12-06T06:15:00.000Z" });
    const deleted = await call("DELETE", `/api/v1/schedules/${s.id}`, teamA.key);
    expect(structuredClone(await deleted.json())).toMatchObject({ schedule: { id: s.id }, deleted: true });
    await expectError(await call("GET", `/api/v1/schedules/${s.id}`, teamA.key), 404, "not_found");
  });

  test("keys and teams: none 401, read-only reads only, another team's 404, no Cloud features 403", async () => {
    const s = await created({ workflow: "nightly", cron: "0 0 * * *" });
    await expectError(await call("GET", "/api/v1/schedules", undefined), 401, "missing_api_key");
    await expectError(await call("POST", "/api/v1/schedules", "rk_live_wrong", { workflow: "nightly", cron: "0 0 * * *" }), 401, "invalid_api_key");
    await expectError(await call("POST", "/api/v1/schedules", teamA.readOnly, { workflow: "nightly", cron: "0 0 * * *" }), 403, "permission_denied");
    await expectError(await call("PATCH", `/api/v1/schedules/${s.id}`, teamA.readOnly, { paused: true }), 403, "permission_denied");
    await expectError(await call("DELETE", `/api/v1/schedules/${s.id}`, teamA.readOnly), 403, "permission_denied");
    expect((await call("GET", `/api/v1/schedules/${s.id}`, teamA.readOnly)).status).toBe(200);
    for (const [method, body] of [["GET"], ["PATCH", { paused: true }], ["DELETE"]] as const) await expectError(await call(method, `/api/v1/schedules/${s.id}`, teamB.key, body), 404, "not_found");
    expect(((await (await call("GET", "/api/v1/schedules", teamB.key)).json()) as Json).data).toEqual([]);
    await expectError(await call("POST", "/api/v1/schedules", teamOff.key, { workflow: "nightly", cron: "0 0 * * *" }), 403, "cloud_disabled");
    expect(await read(s.id)).toMatchObject({ paused: false });
    await remove(s.id);
  });
});

describe("two instances on one Postgres", () => {
  let db: Awaited<ReturnType<typeof postgresDatabase>>;
  let vendor: FakeVendor;
  const clock = new ManualClock(at("2027-11-07T04:10:00Z"));
  const instances: TestRelay[] = [];
  let cloud: Listener;

  beforeAll(async () => {
    db = await postgresDatabase("relay_schedules_two");
    vendor = await startFakeVendor("openai");
    vendor.setDefault({ text: "done" });
    const env = { OPENAI_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: "sk-two-instances" };
    for (let i = 0; i < 2; i++) instances.push(await startRelay({ env, clock, config: { store: { driver: "postgres", postgresUrl: db.url } } }));
    // Each instance's cloud surface starts its runners: the scheduler and the workflow runner.
    const fetches = instances.map((r) => buildFetch(r.relay, "cloud"));
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: fetches[0]!, maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  });
  afterAll(async () => {
    await cloud?.stop(100);
    for (const r of instances) await r.stop();
    await vendor?.close();
    await db?.drop();
  });

  test("an interval schedule across New York's fall-back: seven firings, each run once, both passes through 01:xx", async () => {
    const [a, b] = instances.map((r) => r.relay) as [Relay, Relay];
    const made = await createTeam(a.store, "Two instances", "pro");
    await a.store.accounts.setCloudEnabled(made.team.id, true);
    const call = client(() => cloud.url);
    expect((await call("POST", "/api/v1/workflows", made.secret, NIGHTLY)).status).toBe(201);
    const res = await call("POST", "/api/v1/schedules", made.secret, { workflow: "nightly", cron: "*/30 * * * *", timezone: "America/New_York", input: { topic: "both" } });
    expect(res.status).toBe(201);
    const s = ((await res.json()) as Json).schedule;

    // 00:30 EDT, 01:00, 01:30 EDT, 01:00 EST, 01:30 EST, 02:00 and 02:30 EST.
    const instants = ["04:30", "05:00", "05:30", "06:00", "06:30", "07:00", "07:30"].map((hm) => at(`2027-11-07T${hm}:00Z`));
    for (const instant of instants) {
      clock.set(instant);
      // Both instances fire what is due at once (their timers may poll too).
      await Promise.all([a.scheduler.fireDue(), b.scheduler.fireDue(), a.scheduler.fireDue(), b.scheduler.fireDue()]);
      await ended(a, firingRunId(s.id, instant));
    }
    const runs = (await a.store.workflows.listRuns(made.team.id, 100, 0)).runs;
    expect(runs.map((r) => r.id).sort()).toEqual(instants.map((t) => firingRunId(s.id, t)).sort());
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    // And each ran once: one vendor call per run.
    expect(vendor.requests).toHaveLength(instants.length);
    const final = await a.store.schedules.get(s.id);
    expect(final).toMatchObject({ last_fired_at: at("2027-11-07T07:30:00Z"), next_fire_at: at("2027-11-07T08:00:00Z"), skipped_firings: 0 });
  });
});
