// Durable cloud runs (issue 39 item 3) with every Relay a real `relay cloud` process: a five-step
// workflow (each step depending on the one before) is triggered; the fake vendor holds step 3's first
// call, and the process running the run is killed with SIGKILL while it waits. On restart (the same
// data folder on SQLite; on Postgres, next to a second instance that was running all along) the run
// completes, steps 1 and 2 are not called again, and the vendors saw at most one call more than there
// are steps — and on Postgres, steps 4 and 5 were called once in all: the run resumed on one instance.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startFakeVendor, type FakeVendor, type ReceivedRequest } from "../fakes/vendor.ts";
import { childEnv, freePort, FROM_SOURCE, REPO, run, tempDir } from "../cli/relay-process.ts";
import { postgresDatabase } from "../cloud/pg-database.ts";

type Json = Record<string, any>;
/**
 * Short, so a dead instance's run is taken over within the test; heartbeats every third of it. Not
 * shorter: on a busy machine a live instance's heartbeat can be late by a second, and a lease that
 * lapses meanwhile lets the other instance take over a run that is still going (one call more).
 */
const LEASE_MS = 4_000;
const STEPS = 5;
const CHAIN = {
  name: "chain",
  steps: Array.from({ length: STEPS }, (_, i) => ({
    name: `s${i + 1}`,
    model: "openai:gpt-4o-mini",
    ...(i === 0 ? { userPrompt: "step 1 of {{input.topic}}" } : { dependsOn: [`s${i}`], userPrompt: `step ${i + 1} after {{steps.s${i}.output}}` }),
  })),
};

const stepOf = (req: ReceivedRequest): number => Number(/^step (\d)/.exec(String(req.json?.messages?.at(-1)?.content ?? ""))?.[1]);

/** A vendor that answers each step at once but holds the first call of step 3 (long past the test); vendors sharing `first` hold one call between them. */
async function slowOnStep3(first = { held: false }): Promise<FakeVendor> {
  const vendor = await startFakeVendor("openai");
  vendor.setDefault((req) => {
    const step = stepOf(req);
    if (step === 3 && !first.held) return (first.held = true), { text: "never", latencyMs: 120_000 };
    return { text: `out ${step}`, usage: { input: 10, output: 5 } };
  });
  return vendor;
}

interface Cloud {
  url: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output: Promise<string>;
}

function setUp(home: string, vendor: FakeVendor, store: Json | undefined) {
  const config = join(home, "config.json");
  writeFileSync(config, JSON.stringify({ cloud: { workflowLeaseMs: LEASE_MS }, ...(store ? { store } : {}) }));
  return childEnv(home, { RELAY_CONFIG: config, OPENAI_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: "sk-durable-test" });
}

async function startCloud(env: Record<string, string>): Promise<Cloud> {
  const port = await freePort();
  const proc = Bun.spawn([...FROM_SOURCE, "cloud", "--port", String(port)], { env, cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]).then(([o, e]) => o + e);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`relay cloud did not start: ${await output}`);
    await Bun.sleep(25);
  }
  return { url, proc, output };
}

/** A pro team with Cloud features on, made with the CLI on the instance's store; its key. */
async function team(env: Record<string, string>): Promise<string> {
  const made = await run([...FROM_SOURCE, "cloud", "teams", "create", "--name", "Durable", "--plan", "pro", "--json"], { env });
  expect(made.code).toBe(0);
  const created = JSON.parse(made.stdout) as Json;
  expect((await run([...FROM_SOURCE, "cloud", "teams", "set-cloud", created.team.id, "on"], { env })).code).toBe(0);
  return created.api_key as string;
}

const api = (cloud: Cloud, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${cloud.url}${path}`, { method, headers: { "content-type": "application/json", "x-api-key": key }, body: body === undefined ? undefined : JSON.stringify(body) });

async function triggerChain(cloud: Cloud, key: string): Promise<string> {
  expect((await api(cloud, key, "POST", "/api/v1/workflows", CHAIN)).status).toBe(201);
  const res = await api(cloud, key, "POST", "/api/v1/webhooks/trigger", { workflow: "chain", input: { topic: "cats" } });
  expect(res.status).toBe(202);
  return ((await res.json()) as Json).run.id;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** The run once it ended, read from `cloud`. */
const ended = (cloud: Cloud, key: string, id: string) =>
  waitFor(`run ${id} to end`, async () => {
    const r = ((await (await api(cloud, key, "GET", `/api/v1/webhooks/runs/${id}`)).json()) as Json).run;
    return r.status === "succeeded" || r.status === "failed" ? r : undefined;
  });

const callsBy = (vendors: FakeVendor[]) => vendors.flatMap((v) => v.requests.map(stepOf));
const count = (steps: number[], step: number) => steps.filter((s) => s === step).length;

/** The run completed with every step, each step but 3 called once, step 3 twice (the call in flight when killed). */
function expectResumed(result: Json, steps: number[]) {
  expect(result.success).toBe(true);
  expect(result.finalOutput).toBe("out 5");
  expect(Object.values(result.steps).map((s: any) => s.status)).toEqual(Array(STEPS).fill("completed"));
  expect(result.steps.s4.prompt.user).toBe("step 4 after out 3");
  expect(steps.length).toBeLessThanOrEqual(STEPS + 1);
  for (const step of [1, 2, 4, 5]) expect({ step, calls: count(steps, step) }).toEqual({ step, calls: 1 });
  expect(count(steps, 3)).toBe(2);
}

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});
const track = (cloud: Cloud) => (cleanups.push(() => cloud.proc.kill("SIGKILL")), cloud);

describe("durable cloud runs, with real processes", () => {
  test("SQLite: kill -9 in the middle of a five-step run; after a restart on the same data folder it completes, no completed step called again", async () => {
    const vendor = await slowOnStep3();
    cleanups.push(() => vendor.close());
    const env = setUp(tempDir("durable-sqlite"), vendor, undefined);
    const key = await team(env);
    const first = track(await startCloud(env));
    const id = await triggerChain(first, key);
    await waitFor("step 3's call", () => (callsBy([vendor]).includes(3) ? true : undefined));
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(callsBy([vendor])).toEqual([1, 2, 3]);

    const second = track(await startCloud(env));
    const done = await ended(second, key, id);
    expect(done.status).toBe("succeeded");
    expectResumed(done.result, callsBy([vendor]));
  }, 60_000);

  test("Postgres: two instances; the one running the run is killed mid-run and restarted; the run resumes on one instance only", async () => {
    const db = await postgresDatabase("relay_durable");
    cleanups.push(() => db.drop());
    const store = { driver: "postgres", postgresUrl: db.url };
    // Each instance its own vendor, so the calls tell which instance made them.
    const first = { held: false };
    const vendorA = await slowOnStep3(first);
    const vendorB = await slowOnStep3(first);
    cleanups.push(() => vendorA.close(), () => vendorB.close());
    const envA = setUp(tempDir("durable-pg-a"), vendorA, store);
    const envB = setUp(tempDir("durable-pg-b"), vendorB, store);
    const a = track(await startCloud(envA));
    const b = track(await startCloud(envB));
    const key = await team(envA);
    const id = await triggerChain(a, key);

    const owner = await waitFor("step 3's call", () => (vendorA.requests.some((r) => stepOf(r) === 3) ? "a" : vendorB.requests.some((r) => stepOf(r) === 3) ? "b" : undefined));
    const [dead, deadEnv, survivor] = owner === "a" ? [a, envA, b] : [b, envB, a];
    dead.proc.kill("SIGKILL");
    await dead.proc.exited;
    // The run went on in one instance: its three calls all at one vendor.
    const ownerVendor = owner === "a" ? vendorA : vendorB;
    expect(callsBy([ownerVendor])).toEqual([1, 2, 3]);
    expect(callsBy([vendorA, vendorB]).length).toBe(3);

    // The killed instance back, beside the one that never stopped: either may take the run over, only one does.
    track(await startCloud(deadEnv));
    const done = await ended(survivor, key, id);
    expect(done.status).toBe("succeeded");
    const calls = callsBy([vendorA, vendorB]);
    expectResumed(done.result, calls);
    // Steps 3 (again), 4 and 5 were called by one instance: all at one vendor.
    const resumedAt = [vendorA, vendorB].filter((v) => v.requests.slice(v === ownerVendor ? 3 : 0).length > 0);
    expect(resumedAt.length).toBe(1);
    expect(resumedAt[0]!.requests.slice(resumedAt[0] === ownerVendor ? 3 : 0).map(stepOf)).toEqual([3, 4, 5]);
  }, 60_000);
});
