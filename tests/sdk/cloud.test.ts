// The packed SDK in cloud mode (issue 39, item 1): installed into an empty project outside the
// repository (tests/sdk/packed.ts), consumer-cloud.mjs runs the three-step workflow (two parallel
// steps, one dependent with a JSON schema) with { mode: "cloud" } under Node (as a signed-in user,
// with an access token) and Bun (with an API key) against a real `relay cloud` listener on SQLite
// and on Postgres, whose team routes the steps through its stored OpenAI key to the fake vendor.
// Checked: the WorkflowResult field by field and equal to the cloud's record of the run; deploy on
// run idempotent (one version whatever the runs and runtimes); a step the vendor refuses surfacing
// as error {message, stepName, cause}; the timeout ending the wait; a refused token as RelayCloudError;
// a newer definition deployed under the name meanwhile not changing what the SDK's run runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createKey } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { postgresDatabase } from "../cloud/pg-database.ts";
import type { ReceivedRequest } from "../fakes/vendor.ts";
import { eventually, startWorld, type World } from "../proxy/world.ts";
import { installPackedSdk, NODE, type PackedSdk, runIn } from "./packed.ts";

type Json = Record<string, any>;
const TEAM_OPENAI_KEY = "team-openai-sdk-cloud-0123456789";
const ACCOUNTS = { passwordMemoryKiB: 8, passwordTimeCost: 1, tokenTtlDays: 30, signinFailuresPerEmail: 3, signinFailuresGlobal: 8, signinWindowMinutes: 15, signupsPerMinute: 25 };
/** Each vendor call waits so long, so that parallel steps overlap visibly. */
const VENDOR_LATENCY_MS = 300;
/** The vendor's latency for the input "slow", far over that run's 300 ms timeout. */
const SLOW_MS = 1500;
const USAGE = { input: 20, output: 5 };
/** gpt-4o-mini's listed prices: $0.15 in, $0.60 out per million tokens. */
const STEP_COST = (20 * 0.15 + 5 * 0.6) / 1e6;
const REPORT = { headline: "Relay ships an SDK", tagCount: 2 };

const lastUser = (req: ReceivedRequest): string => String((req.json?.messages ?? []).filter((m: Json) => m.role === "user").at(-1)?.content ?? "");

function reply(req: ReceivedRequest) {
  const user = lastUser(req);
  if (user === "Tags for: no tags today") return { status: 400, errorType: "invalid_request_error", errorMessage: "no tags today" };
  const latencyMs = user.includes("slow") ? SLOW_MS : VENDOR_LATENCY_MS;
  const text = user.startsWith("Summarise") ? "SDK released" : user.startsWith("Tags") ? "news, sdk" : JSON.stringify(REPORT);
  return { text, usage: USAGE, latencyMs };
}

let sdk: PackedSdk;
beforeAll(async () => {
  sdk = await installPackedSdk({ "consumer-cloud.mjs": "cloud.mjs", "consumer-deploy.mjs": "deploy.mjs" });
}, 120_000);
afterAll(() => {
  if (sdk) rmSync(sdk.dir, { recursive: true, force: true });
});

describe.each(["sqlite", "postgres"] as const)("the packed SDK in cloud mode, against relay cloud on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let team: { id: string; token: string; key: string };

  const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${cloud.url}${path}`, { method, headers: { "content-type": "application/json", "x-api-key": team.key }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  };
  const runsEnded = () =>
    eventually(async () => {
      const runs = (await call("GET", "/api/v1/webhooks/runs?limit=100")).data as Json[];
      return runs.every((r) => r.status === "succeeded" || r.status === "failed") ? runs : undefined;
    }, "every run to end", 15_000);

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_sdk_cloud");
    w = await startWorld({ config: { cloud: { accounts: ACCOUNTS }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    // A signed-up user's team: Cloud features on; pro, for the requests per minute of polling.
    const res = await fetch(`${cloud.url}/v1/accounts/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `sdk.${driver}@example.com`, password: "correct horse battery", team_name: "SDK" }) });
    expect(res.status).toBe(201);
    const signedUp = (await res.json()) as Json;
    await store.teams.setPlan(signedUp.team.id, "pro");
    team = { id: signedUp.team.id, token: signedUp.access_token, key: (await createKey(store.apiKeys, signedUp.team.id, "standard", "sdk")).secret };
    await call("PUT", "/api/v1/credentials", { provider: "openai", api_key: TEAM_OPENAI_KEY });
    w.openai.setDefault(reply);
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  const runtimes: Array<[string, string[] | undefined, "token" | "key"]> = [
    ["node", NODE ? [NODE, "cloud.mjs"] : undefined, "token"],
    ["bun", [process.execPath, "cloud.mjs"], "key"],
  ];

  describe.each(runtimes)("installed and run on %s", (runtime, cmd, credential) => {
    let out: Json;
    let calls: ReceivedRequest[];
    let before: Json[];
    let after: Json[];

    beforeAll(async () => {
      if (!cmd) return;
      before = (await call("GET", "/api/v1/workflows")).data;
      const callsBefore = w.openai.requests.length;
      const env = { RELAY_API_HOST: cloud.url, RELAY_TOKEN: team[credential], RELAY_TEAM: team.id, RELAY_NO_VERSION_CHECK: "1" };
      out = JSON.parse((await runIn(cmd, sdk.project, env)).out);
      // The timed-out run goes on in the cloud: wait for it, so that the next runtime starts clean.
      await runsEnded();
      calls = w.openai.requests.slice(callsBefore);
      after = (await call("GET", "/api/v1/workflows")).data;
    }, 60_000);

    test.skipIf(!cmd)("the WorkflowResult, field by field, is the cloud's record of the run", async () => {
      expect(out.runtime).toBe(runtime);
      const { result } = out;
      expect(Object.keys(result).sort()).toEqual(["finalOutput", "metadata", "steps", "success"]);
      expect(result.success).toBe(true);
      expect(result.finalOutput).toEqual(REPORT);
      expect(Object.keys(result.metadata).sort()).toEqual(["caller", "duration", "endTime", "runId", "startTime", "version", "workflowName"]);
      expect(result.metadata).toMatchObject({ workflowName: "article", caller: "cloud-test", version: 1 });
      expect(result.metadata.runId).toMatch(/^wfr_/);
      expect(out.dates).toBe(true);
      expect(Date.parse(result.metadata.endTime) - Date.parse(result.metadata.startTime)).toBe(result.metadata.duration);
      expect(Object.keys(result.steps).sort()).toEqual(["report", "summary", "tags"]);
      const prompts = { summary: { user: "Summarise: Relay ships an SDK" }, tags: { system: "You tag texts.", user: "Tags for: Relay ships an SDK" }, report: { user: "Report on SDK released tagged news, sdk" } };
      const outputs = { summary: "SDK released", tags: "news, sdk", report: REPORT };
      for (const name of ["summary", "tags", "report"] as const) {
        const step = result.steps[name];
        expect(Object.keys(step).sort(), name).toEqual(["cost", "latency", "model", "output", "prompt", "repaired", "retries", "routedModel", "status", "tokens"]);
        expect(step).toMatchObject({ status: "completed", model: "openai:gpt-4o-mini", routedModel: "openai:gpt-4o-mini", tokens: { input: 20, output: 5, total: 25 }, retries: 0, repaired: false });
        expect(step.output).toEqual(outputs[name]);
        expect(step.prompt).toEqual(prompts[name]);
        expect(step.cost).toBeCloseTo(STEP_COST, 12);
        expect(step.latency).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS - 5);
      }
      // The run the cloud stored: the same result (dates as JSON), run by the team.
      const run = (await call("GET", `/api/v1/webhooks/runs/${result.metadata.runId}`)).run;
      expect(run).toMatchObject({ status: "succeeded", workflow: "article", version: 1, input: { article: { body: "Relay ships an SDK" } } });
      const { caller: _caller, ...stored } = result.metadata;
      expect(run.result).toEqual({ ...result, metadata: stored });
    });

    test.skipIf(!cmd)("the steps ran in the cloud, with the team's stored key: two parallel calls, then the dependent one asking for the schema", () => {
      const first = calls.slice(0, 3);
      expect(first.map((c) => lastUser(c).split(" ")[0])).toEqual(expect.arrayContaining(["Summarise:", "Tags"]));
      expect(lastUser(first[2]!).split(" ")[0]).toBe("Report");
      expect(Math.abs(first[1]!.at - first[0]!.at)).toBeLessThan(VENDOR_LATENCY_MS / 2);
      expect(first[2]!.at - Math.max(first[0]!.at, first[1]!.at)).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS - 5);
      expect(first[2]!.json.response_format).toMatchObject({ type: "json_schema" });
      for (const c of calls) expect(c.headers.authorization).toBe(`Bearer ${TEAM_OPENAI_KEY}`);
    });

    test.skipIf(!cmd)("deploy on run is idempotent: one version of the workflow whatever the runs and runtimes, deploy() answers it", () => {
      expect(before.map((x) => x.version)).toEqual(runtime === "node" ? [] : [1]);
      expect(after.map((x) => [x.name, x.version])).toEqual([["article", 1]]);
      expect(out.deployed).toEqual({ id: after[0]!.id, name: "article", version: 1, created: false, trigger: null, schedules: [] });
      expect([out.result.metadata.version, out.failed.metadata.version]).toEqual([1, 1]);
    });

    test.skipIf(!cmd)("a step the vendor refuses in the cloud: error {message, stepName, cause}, no finalOutput", () => {
      const { failed } = out;
      expect(failed.success).toBe(false);
      expect(failed.finalOutput).toBeUndefined();
      expect(Object.keys(failed.error).sort()).toEqual(["cause", "message", "stepName"]);
      expect(failed.error.stepName).toBe("tags");
      expect(failed.error.message).toContain("no tags today");
      expect(failed.error.cause).toMatchObject({ status: 400 });
      expect(failed.steps.tags).toMatchObject({ status: "failed", error: { message: expect.stringContaining("no tags today") } });
      expect(failed.steps.report).toBeUndefined();
    });

    test.skipIf(!cmd)("the timeout ends the wait with a failed result naming the run, which goes on in the cloud", async () => {
      const { slow } = out;
      expect(slow).toMatchObject({ success: false, steps: {}, error: { message: "the workflow timed out after 300 ms", cause: { code: "timeout", timeoutMs: 300 } } });
      expect(slow.metadata.workflowName).toBe("article");
      expect(slow.metadata.duration).toBeGreaterThanOrEqual(300);
      expect(slow.metadata.duration).toBeLessThan(SLOW_MS);
      expect((await call("GET", `/api/v1/webhooks/runs/${slow.metadata.runId}`)).run).toMatchObject({ status: "succeeded", version: 1, input: { article: { body: "slow" } } });
    });

    test.skipIf(!cmd)("a token the cloud refuses rejects the run with a RelayCloudError", () => {
      expect(out.refused).toMatchObject({ isCloudError: true, name: "RelayCloudError", status: 401, code: "invalid_api_key" });
      expect(out.refused.requestId).toMatch(/^req_/);
    });
  });

  test("a newer definition deployed under the same name: the SDK's run still runs its own version", async () => {
    const v1 = ((await call("GET", "/api/v1/workflows")).data as Json[])[0]!;
    const changed = { name: "article", steps: [{ name: "other", model: "openai:gpt-4o-mini", userPrompt: "Other: {{input.article.body}}" }] };
    expect((await call("POST", "/api/v1/workflows", changed)).workflow.version).toBe(2);
    const env = { RELAY_API_HOST: cloud.url, RELAY_TOKEN: team.key, RELAY_NO_VERSION_CHECK: "1", FIRST_RUN_ONLY: "1" };
    const { result } = JSON.parse((await runIn([process.execPath, "cloud.mjs"], sdk.project, env)).out);
    expect(result).toMatchObject({ success: true, finalOutput: REPORT, metadata: { version: 1 } });
    expect(Object.keys(result.steps).sort()).toEqual(["report", "summary", "tags"]);
    const run = (await call("GET", `/api/v1/webhooks/runs/${result.metadata.runId}`)).run;
    expect(run).toMatchObject({ workflow_id: v1.id, version: 1 });
    // Over HTTP: a version that is not deployed is a 404, one that is no version a 400 naming it.
    for (const [version, status] of [[7, 404], [0, 400], ["1", 400]] as const) {
      const res = await fetch(`${cloud.url}/api/v1/webhooks/trigger`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": team.key }, body: JSON.stringify({ workflow: "article", version }) });
      expect(res.status, String(version)).toBe(status);
      if (status === 400) expect(((await res.json()) as Json).error.details.parameter).toBe("version");
    }
  }, 30_000);

  test("deploy() registers the attached webhook trigger and schedule, once however often it runs; the trigger starts runs", async () => {
    const env = { RELAY_API_HOST: cloud.url, RELAY_TOKEN: team.token, RELAY_NO_VERSION_CHECK: "1" };
    const { first, second } = JSON.parse((await runIn([process.execPath, "deploy.mjs"], sdk.project, env)).out);
    expect(first).toMatchObject({ id: expect.stringMatching(/^wf_/), name: "hooked", version: 1, created: true });
    expect(first.trigger).toMatchObject({ endpoint: "news/in", url: `${cloud.url}/hooks/${team.id}/news/in`, method: "POST", headers: ["x-source"], signed: false });
    expect(first.schedules).toHaveLength(1);
    expect(first.schedules[0]).toMatchObject({ id: expect.stringMatching(/^sch_/), workflow: "hooked", cron: "0 9 * * 1", timezone: "Europe/Paris", input: { text: "weekly" }, paused: false });
    expect(second).toMatchObject({ id: first.id, version: 1, created: false, trigger: first.trigger });
    expect(second.schedules.map((s: Json) => s.id)).toEqual([first.schedules[0].id]);
    const schedules = await call("GET", "/api/v1/schedules");
    expect(schedules.data.map((s: Json) => s.id)).toEqual([first.schedules[0].id]);

    // The trigger answers at its URL with its headers, and the body is the run's input.
    expect((await fetch(first.trigger.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "hi" }) })).status).toBe(401);
    const hooked = await fetch(first.trigger.url, { method: "POST", headers: { "content-type": "application/json", "x-source": "sdk-test" }, body: JSON.stringify({ text: "hi" }) });
    expect(hooked.status).toBe(202);
    const runId = ((await hooked.json()) as Json).run.id;
    const run = await eventually(async () => {
      const r = (await call("GET", `/api/v1/webhooks/runs/${runId}`)).run;
      return r.status === "succeeded" || r.status === "failed" ? r : undefined;
    }, "the hooked run to end", 15_000);
    expect(run.result.steps.only.prompt).toEqual({ user: "Hook: hi" });
  }, 30_000);
});
