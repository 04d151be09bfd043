// Workflows on the hosted API (issue 39 items 3, 4 and 6) over real HTTP on the `relay cloud`
// listener, on SQLite and on Postgres, against the fake vendors: deploying (each invalid field a 400
// naming it, the same definition the same version, a changed one the next), triggering a deployed
// workflow (202 at once, the run completing in the background through the team's stored key, its
// WorkflowResult field by field), a failed step named, the run and debug routes with every step's
// detail, and keys and teams kept apart (a team without Cloud features gets 403).
// (A copy of each answer is checked with toMatchObject: Bun writes its asymmetric matchers into the object it checks.)
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import type { ReceivedRequest } from "../fakes/vendor.ts";
import { eventually, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const TEAM_OPENAI_KEY = "team-openai-workflows-0123456789";
const USAGE = { input: 1000, output: 500 };
/** gpt-4o-mini's listed prices: $0.15 in, $0.60 out per million tokens. */
const STEP_COST = (1000 * 0.15 + 500 * 0.6) / 1e6;

const ARTICLE = {
  name: "article",
  steps: [
    { name: "summary", model: "openai:gpt-4o-mini", userPrompt: "Summarise: {{input.body}}" },
    { name: "tags", model: "openai:gpt-4o-mini", systemPrompt: "You tag texts.", userPrompt: "Tags for: {{input.body}}" },
    {
      name: "report",
      model: "openai:gpt-4o-mini",
      dependsOn: ["summary", "tags"],
      schema: { type: "object", properties: { headline: { type: "string" } }, required: ["headline"] },
      userPrompt: "Summary: {{steps.summary.output}} Tags: {{steps.tags.output}}",
    },
  ],
};

const lastUser = (req: ReceivedRequest): string => String((req.json?.messages ?? []).filter((m: Json) => m.role === "user").at(-1)?.content ?? "");

/** The fake vendor's answer to each step of ARTICLE. */
function answer(req: ReceivedRequest) {
  const user = lastUser(req);
  if (user.startsWith("Summarise")) return { text: "A short summary.", usage: USAGE };
  if (user.startsWith("Tags")) return { text: "news, cats", usage: USAGE };
  return { text: JSON.stringify({ headline: "Cats make news" }), usage: USAGE };
}

describe.each(["sqlite", "postgres"] as const)("workflows on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let teamA: { id: string; key: string; readOnly: string };
  let teamB: { id: string; key: string };

  const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
    fetch(`${cloud.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-api-key": key }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const getJson = async (path: string, key = teamA.key): Promise<Json> => {
    const res = await call("GET", path, key);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  };
  const finished = (id: string) =>
    eventually(async () => {
      const run = (await getJson(`/api/v1/webhooks/runs/${id}`)).run;
      return run.status === "queued" || run.status === "running" ? undefined : run;
    }, `workflow run ${id} to end`, 15_000);
  async function trigger(workflow: string, input: unknown, key = teamA.key): Promise<Json> {
    // Runs are listed by when they were triggered, on the Relay's clock.
    w.clock.advance(1_000);
    const res = await call("POST", "/api/v1/webhooks/trigger", key, { workflow, input });
    expect(res.status).toBe(202);
    return ((await res.json()) as Json).run;
  }
  async function expectError(res: Response, status: number, code: string, parameter?: string): Promise<Json> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(structuredClone(body)).toMatchObject({ error: { code, message: expect.any(String) }, request_id: expect.stringMatching(/^req_/) });
    if (parameter !== undefined) expect(structuredClone(body.error.details)).toMatchObject({ parameter, expected: expect.any(String) });
    return body;
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_workflows");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    const a = await createTeam(store, "Flows A", "pro");
    teamA = { id: a.team.id, key: a.secret, readOnly: (await createKey(store.apiKeys, a.team.id, "read_only", "viewer")).secret };
    const b = await createTeam(store, "Flows B", "pro");
    teamB = { id: b.team.id, key: b.secret };
    await store.accounts.setCloudEnabled(a.team.id, true);
    expect((await call("PUT", "/api/v1/credentials", teamA.key, { provider: "openai", api_key: TEAM_OPENAI_KEY })).status).toBe(200);
  });
  afterEach(() => w.openai.reset());
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("deploying: a new version only when the definition changed; the list has each workflow's latest", async () => {
    const first = await call("POST", "/api/v1/workflows", teamA.key, ARTICLE);
    expect(first.status).toBe(201);
    const v1 = ((await first.json()) as Json).workflow;
    expect(structuredClone(v1)).toMatchObject({ id: expect.stringMatching(/^wf_/), object: "workflow", name: "article", version: 1, definition: ARTICLE });

    // The same definition, its keys in another order: the same version.
    const reordered = { steps: ARTICLE.steps.map((s) => Object.fromEntries(Object.entries(s).reverse())), name: "article" };
    const again = await call("POST", "/api/v1/workflows", teamA.key, reordered);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Json)).toMatchObject({ workflow: { id: v1.id, version: 1 }, created: false });

    const changed = { ...ARTICLE, steps: [...ARTICLE.steps.slice(0, 2), { ...ARTICLE.steps[2]!, retry: { maxRetries: 1, backoffMs: 10 } }] };
    const v2res = await call("POST", "/api/v1/workflows", teamA.key, changed);
    expect(v2res.status).toBe(201);
    const v2 = ((await v2res.json()) as Json).workflow;
    expect(v2.version).toBe(2);
    expect(v2.id).not.toBe(v1.id);
    // Back to the first definition: its version, not a third.
    expect(((await (await call("POST", "/api/v1/workflows", teamA.key, ARTICLE)).json()) as Json).workflow.version).toBe(1);

    for (const path of ["/api/v1/workflows", "/v1/debug/workflows"]) {
      const listed = (await getJson(path, teamA.readOnly)).data as Json[];
      expect(listed.map((x) => [x.name, x.version])).toEqual([["article", 2]]);
    }
    expect((await getJson("/api/v1/workflows", teamB.key)).data).toEqual([]);
    // Put the first definition back as the latest, for the tests below.
    const v3 = ((await (await call("POST", "/api/v1/workflows", teamA.key, { ...ARTICLE, steps: ARTICLE.steps.map((s) => ({ ...s, metadata: { v: 3 } })) })).json()) as Json).workflow;
    expect(v3.version).toBe(3);
  });

  test("deploying: each invalid field is a 400 naming it", async () => {
    const deploy = (body: unknown) => call("POST", "/api/v1/workflows", teamA.key, body);
    const step = ARTICLE.steps[0]!;
    await expectError(await deploy({ steps: ARTICLE.steps }), 400, "invalid_request", "name");
    await expectError(await deploy({ name: "x", steps: "none" }), 400, "invalid_request", "steps");
    await expectError(await deploy({ name: "x", steps: [step, { name: "b", model: 7 }] }), 400, "invalid_request", "steps[1].model");
    await expectError(await deploy({ name: "x", steps: [{ ...step, dependsOn: "summary" }] }), 400, "invalid_request", "steps[0].dependsOn");
    await expectError(await deploy({ name: "x", steps: [{ ...step, retry: { maxRetries: -1 } }] }), 400, "invalid_request", "steps[0].retry.maxRetries");
    await expectError(await deploy({ name: "x", steps: [{ ...step, schema: "json" }] }), 400, "invalid_request", "steps[0].schema");
    const cycle = await expectError(
      await deploy({ name: "x", steps: [{ name: "a", model: "openai:m", dependsOn: ["b"] }, { name: "b", model: "openai:m", dependsOn: ["a"] }] }),
      400, "invalid_request", "steps",
    );
    expect(cycle.error.message).toContain("dependency cycle");
    const model = await expectError(await deploy({ name: "x", steps: [{ name: "a", model: "gpt-4o" }] }), 400, "invalid_request", "steps");
    expect(model.error.message).toContain("is not <vendor>:<model>");
    const template = await expectError(await deploy({ name: "x", steps: [{ name: "a", model: "openai:m", userPrompt: "{{steps.b.output}}" }] }), 400, "invalid_request", "steps");
    expect(template.error.message).toContain('reads step "b"');
    await expectError(await call("POST", "/api/v1/workflows", teamA.readOnly, ARTICLE), 403, "permission_denied");
  });

  test("a triggered run completes in the background with its WorkflowResult, through the team's stored key", async () => {
    w.openai.setDefault((req) => ({ ...answer(req), latencyMs: 20 }));
    const queued = await trigger("article", { body: "Cats were seen reading." });
    expect(structuredClone(queued)).toMatchObject({ id: expect.stringMatching(/^wfr_/), object: "workflow_run", workflow: "article", version: 3, status: "queued", result: null, input: { body: "Cats were seen reading." } });
    const run = await finished(queued.id);
    expect(structuredClone(run)).toMatchObject({ status: "succeeded", started_at: expect.any(String), finished_at: expect.any(String) });
    // Claimed at once, on the Relay's clock that did not move since the trigger.
    expect([run.started_at, run.finished_at]).toEqual([queued.created_at, queued.created_at]);
    const result = run.result as Json;
    expect(result.success).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.finalOutput).toEqual({ headline: "Cats make news" });
    expect(Object.keys(result.steps).sort()).toEqual(["report", "summary", "tags"]);
    expect(structuredClone(result.steps.summary)).toMatchObject({ status: "completed", output: "A short summary.", model: "openai:gpt-4o-mini", routedModel: "openai:gpt-4o-mini", tokens: { input: 1000, output: 500, total: 1500 }, retries: 0, repaired: false });
    expect(result.steps.tags.prompt).toEqual({ system: "You tag texts.", user: "Tags for: Cats were seen reading." });
    for (const s of Object.values(result.steps) as Json[]) {
      expect(s.cost).toBeCloseTo(STEP_COST, 12);
      expect(s.latency).toBeGreaterThanOrEqual(20);
    }
    expect(structuredClone(result.metadata)).toMatchObject({ workflowName: "article", runId: queued.id, version: 3, startTime: expect.any(String), endTime: expect.any(String) });
    expect(result.metadata.duration).toBe(Date.parse(result.metadata.endTime) - Date.parse(result.metadata.startTime));

    // Three calls, each with the team's key; the dependent step read its dependencies' outputs.
    expect(w.openai.requests.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${TEAM_OPENAI_KEY}`));
    expect(lastUser(w.openai.requests.at(-1)!)).toBe("Summary: A short summary. Tags: news, cats");

    // The debug view: every step with what it read, its prompt after templating, model, output, tokens, cost, latency, retries, error.
    const debug = (await getJson(`/v1/debug/runs/${queued.id}`, teamA.readOnly)).run;
    expect(debug.steps.map((s: Json) => s.name)).toEqual(["summary", "tags", "report"]);
    const report = debug.steps[2];
    expect(structuredClone(report)).toMatchObject({
      status: "completed",
      depends_on: ["summary", "tags"],
      input: { input: { body: "Cats were seen reading." }, steps: { summary: { output: "A short summary." }, tags: { output: "news, cats" } } },
      prompt: { user: "Summary: A short summary. Tags: news, cats" },
      model: "openai:gpt-4o-mini",
      routed_model: "openai:gpt-4o-mini",
      output: { headline: "Cats make news" },
      tokens: { input: 1000, output: 500, total: 1500 },
      retries: 0,
      repaired: false,
      error: null,
    });
    expect(report.cost_usd).toBeCloseTo(STEP_COST, 12);
    expect(report.latency_ms).toBeGreaterThanOrEqual(20);
  });

  test("a failed step ends the run, named with its cause; the debug view shows its error and the steps not started", async () => {
    w.openai.setDefault((req) => (lastUser(req).startsWith("Tags") ? { status: 400, errorType: "invalid_request_error", errorMessage: "no tags today" } : answer(req)));
    const run = await finished((await trigger("article", { body: "x" })).id);
    expect(run.status).toBe("failed");
    expect(structuredClone(run.result)).toMatchObject({ success: false, error: { stepName: "tags", message: expect.stringContaining("no tags today"), cause: { status: 400 } } });
    expect(run.result.finalOutput).toBeUndefined();
    const steps = (await getJson(`/v1/debug/runs/${run.id}`)).run.steps as Json[];
    expect(structuredClone(steps.find((s) => s.name === "tags"))).toMatchObject({ status: "failed", error: { message: expect.stringContaining("no tags today") } });
    expect(structuredClone(steps.find((s) => s.name === "report"))).toMatchObject({ status: "pending", prompt: null, output: null });
  });

  test("runs are listed newest first, paged, on both routes", async () => {
    for (const path of ["/api/v1/webhooks/runs", "/v1/debug/runs"]) {
      const page = await getJson(`${path}?limit=1`, teamA.readOnly);
      expect(structuredClone(page)).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(page.data[0].status).toBe("failed");
      expect((await getJson(`${path}?limit=1&offset=1`)).data[0].status).toBe("succeeded");
      await expectError(await call("GET", `${path}?limit=0`, teamA.key), 400, "invalid_request", "limit");
    }
    expect((await getJson("/api/v1/webhooks/runs", teamB.key)).total).toBe(0);
  });

  test("triggering: the workflow named, deployed, and the team's Cloud features on; keys and teams apart", async () => {
    const triggerAs = (key: string | undefined, body: unknown) => call("POST", "/api/v1/webhooks/trigger", key, body);
    await expectError(await triggerAs(teamA.key, { input: {} }), 400, "invalid_request", "workflow");
    await expectError(await triggerAs(teamA.key, { workflow: "nowhere" }), 404, "not_found");
    await expectError(await triggerAs(undefined, { workflow: "article" }), 401, "missing_api_key");
    await expectError(await triggerAs("rk_live_not_a_key_at_all", { workflow: "article" }), 401, "invalid_api_key");
    await expectError(await triggerAs(teamA.readOnly, { workflow: "article" }), 403, "permission_denied");
    // Team B has no Cloud features; with them on, it still has no workflow of A's.
    await expectError(await triggerAs(teamB.key, { workflow: "article" }), 403, "cloud_disabled");
    await w.relay.relay.store.accounts.setCloudEnabled(teamB.id, true);
    await expectError(await triggerAs(teamB.key, { workflow: "article" }), 404, "not_found");

    const aRun = (await getJson("/api/v1/webhooks/runs?limit=1")).data[0].id;
    await expectError(await call("GET", `/api/v1/webhooks/runs/${aRun}`, teamB.key), 404, "not_found");
    await expectError(await call("GET", `/v1/debug/runs/${aRun}`, teamB.key), 404, "not_found");
    await expectError(await call("GET", `/v1/debug/runs/${aRun}`, undefined), 401, "missing_api_key");
    await expectError(await call("GET", "/v1/debug/workflows", "rk_live_wrong"), 401, "invalid_api_key");
  });
});
