// Benchmarks (issue 38 item 5) over real HTTP on the `relay cloud` listener, on SQLite and on
// Postgres, against the fake vendors: a run of two models on an uploaded set completes in the
// background with each call's latency, cost, tokens, success and score as the vendors answered (one
// answers right, the other wrong), through the team's stored keys and in its request log; history
// and comparison give the numbers recorded; the spend cap stops a run before a call it cannot afford;
// a run left running by a dead instance is resumed with only its missing calls; every invalid field is
// a 400 naming it; keys, permissions and teams are kept apart.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import type { ReceivedRequest } from "../fakes/vendor.ts";
import { startRelay } from "../helpers/relay.ts";
import { eventually, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const TEAM_OPENAI_KEY = "team-openai-bench-0123456789WXYZ";
const TEAM_ANTHROPIC_KEY = "team-anthropic-bench-9876543210ABCD";
const USAGE = { input: 1000, output: 500 };
/** Listed prices per million tokens: gpt-4o-mini $0.15 in, $0.60 out; claude-haiku-4-5 $1 in, $5 out. */
const COST = { "gpt-4o-mini": (1000 * 0.15 + 500 * 0.6) / 1e6, "claude-haiku-4-5": (1000 * 1 + 500 * 5) / 1e6 };
const MODELS = ["gpt-4o-mini", "claude-haiku-4-5"];

const QUIZ = {
  name: "quiz",
  prompts: [
    { id: "capital", prompt: "What is the capital of France?", expected: "paris", match: "contains" },
    { id: "sum", system: "Answer with a number only.", prompt: "What is 17 + 25?", expected: "^42$", match: "regex" },
    { id: "greeting", prompt: "Say hello." },
  ],
};

/** What the right-answering vendor says to each prompt of QUIZ. */
function rightAnswer(req: ReceivedRequest): string {
  if (req.bodyText.includes("capital")) return "The capital is Paris.";
  if (req.bodyText.includes("17 + 25")) return "42";
  return "Hello!";
}

/** The nearest-rank percentile, computed here apart from the code under test. */
const nearestRank = (values: number[], p: number) => (values.length ? [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1] : null);

describe.each(["sqlite", "postgres"] as const)("benchmarks on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let teamA: { id: string; key: string; readOnly: string };
  let teamB: string;
  let free: string;

  const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
    fetch(`${cloud.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-api-key": key }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  const getJson = async (path: string, key = teamA.key): Promise<Json> => {
    const res = await call("GET", path, key);
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  async function startRun(body: unknown, key = teamA.key): Promise<Json> {
    const res = await call("POST", "/api/v1/benchmarks/run", key, body);
    expect(res.status).toBe(202);
    return ((await res.json()) as Json).benchmark;
  }
  /** The run once it ended (polled over GET). */
  const finished = (id: string, key = teamA.key) =>
    eventually(async () => {
      const run = (await getJson(`/api/v1/benchmarks/${id}`, key)).benchmark;
      return run.status === "queued" || run.status === "running" ? undefined : run;
    }, `benchmark ${id} to end`, 15_000);
  async function expectInvalid(res: Response, parameter: string) {
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: { code: "invalid_request", message: expect.any(String), details: expect.objectContaining({ parameter, expected: expect.any(String) }) }, request_id: expect.stringMatching(/^req_/) });
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_benchmarks");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    const a = await createTeam(store, "Bench A", "pro");
    teamA = { id: a.team.id, key: a.secret, readOnly: (await createKey(store.apiKeys, a.team.id, "read_only", "viewer")).secret };
    teamB = (await createTeam(store, "Bench B", "pro")).secret;
    free = (await createTeam(store, "Bench free", "free")).secret;
  });
  afterEach(() => {
    w.openai.reset();
    w.anthropic.reset();
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("a run of two models completes with each call's latency, cost, success and score, through the team's stored keys and in its log", async () => {
    expect((await call("PUT", "/api/v1/credentials", teamA.key, { provider: "openai", api_key: TEAM_OPENAI_KEY })).status).toBe(200);
    expect((await call("PUT", "/api/v1/credentials", teamA.key, { provider: "anthropic", api_key: TEAM_ANTHROPIC_KEY })).status).toBe(200);
    w.openai.setDefault((req) => ({ text: rightAnswer(req), usage: USAGE, latencyMs: 40 }));
    w.anthropic.setDefault({ text: "London, I think.", usage: USAGE, latencyMs: 40 });

    const queued = await startRun({ models: MODELS, prompt_set: QUIZ, spend_cap_usd: 1 });
    const id = queued.id;
    expect(structuredClone(queued)).toMatchObject({ id: expect.stringMatching(/^bench_/), status: "queued", models: MODELS, prompt_set: { name: "quiz", shipped: false, prompts: 3 }, max_tokens: 256, spend_cap_usd: 1, spent_usd: 0, calls_planned: 6 });
    const run = await finished(id);
    expect(run).toMatchObject({ status: "succeeded", reason: null, calls_done: 6, started_at: expect.any(String), finished_at: expect.any(String) });

    // The vendors got the team's keys, each prompt once per model, with the run's max_tokens.
    expect(w.openai.requests.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${TEAM_OPENAI_KEY}`));
    expect(w.anthropic.requests.map((r) => r.headers["x-api-key"])).toEqual(Array(3).fill(TEAM_ANTHROPIC_KEY));
    expect(w.anthropic.requests.map((r) => r.json.max_tokens)).toEqual([256, 256, 256]);
    expect(w.anthropic.requests.filter((r) => JSON.stringify(r.json.system ?? "").includes("Answer with a number only.")).length).toBe(1);

    const results = run.results as Json[];
    expect(results.map((r) => [r.model, r.prompt_id])).toEqual(MODELS.flatMap((m) => QUIZ.prompts.map((p) => [m, p.id])));
    for (const r of results) {
      // A copy: Bun's toMatchObject writes its asymmetric matchers into the object it checks.
      expect(structuredClone(r)).toMatchObject({ success: true, status: 200, error: null, tokens: { input: 1000, output: 500 }, request_id: expect.stringMatching(/^req_/) });
      expect(r.cost_usd).toBeCloseTo(COST[r.model as keyof typeof COST], 12);
      expect(r.latency_ms).toBeGreaterThanOrEqual(40);
    }
    expect(results.map((r) => r.score)).toEqual([1, 1, null, 0, 0, null]);
    expect(results[0].output).toBe("The capital is Paris.");
    expect(run.spent_usd).toBeCloseTo(3 * COST["gpt-4o-mini"] + 3 * COST["claude-haiku-4-5"], 12);
    expect(run.summary.map((s: Json) => [s.model, s.calls, s.success_rate, s.score, s.scored])).toEqual([
      ["gpt-4o-mini", 3, 1, 1, 2],
      ["claude-haiku-4-5", 3, 1, 0, 2],
    ]);

    // Each call is a run of the team's request log, with the same latency and cost.
    await w.relay.relay.writer.flush();
    const logged = new Map(((await getJson("/api/logs?limit=100")).data as Json[]).map((l) => [l.id, l]));
    for (const r of results) {
      const entry = logged.get(r.request_id)!;
      expect(entry).toMatchObject({ model: r.model, status: 200, latency_ms: r.latency_ms, metadata: {} });
      expect(entry.estimated_cost_usd).toBeCloseTo(r.cost_usd, 12);
    }

    // A vendor's failure is a call that did not succeed, scored 0.
    w.clock.advance(1_000);
    w.openai.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "bad prompt" });
    const failing = await finished((await startRun({ models: ["gpt-4o-mini"], prompt_set: { name: "one", prompts: [QUIZ.prompts[0]] } })).id);
    expect(failing.status).toBe("succeeded");
    expect(failing.results[0]).toMatchObject({ success: false, status: 400, score: 0, output: "", error: expect.stringContaining("bad prompt") });
    expect(failing.summary[0]).toMatchObject({ calls: 1, successes: 0, success_rate: 0, latency_ms: { mean: null, p50: null, p95: null }, score: 0 });
  });

  test("history and comparison give the numbers recorded", async () => {
    w.clock.advance(60_000);
    w.openai.setDefault((req) => ({ text: rightAnswer(req), usage: { input: 10, output: 20 }, latencyMs: 5 }));
    const second = await finished((await startRun({ models: ["gpt-4o-mini"], prompt_set: QUIZ })).id);
    expect(second.status).toBe("succeeded");
    const runs = (await getJson("/api/v1/benchmarks?limit=100")).data as Json[];
    const quizRuns = runs.filter((r) => r.prompt_set.name === "quiz");
    expect(quizRuns.map((r) => r.id)[0]).toBe(second.id);
    const details = await Promise.all(quizRuns.map(async (r) => (await getJson(`/api/v1/benchmarks/${r.id}`)).benchmark));
    const oneRun = (await getJson("/api/v1/benchmarks?limit=100")).data.find((r: Json) => r.prompt_set.name === "one");

    /** The summary of `rs` computed here: floats to 12 digits, as sums in another order may differ in the last bit. */
    const expectSummary = (got: Json, rs: Json[]) => {
      const ok = rs.filter((r) => r.success).map((r) => r.latency_ms);
      const scores = rs.map((r) => r.score).filter((s) => s !== null);
      const total = rs.reduce((s, r) => s + r.cost_usd, 0);
      expect(got).toMatchObject({ calls: rs.length, successes: ok.length, scored: scores.length, latency_ms: { p50: nearestRank(ok, 50), p95: nearestRank(ok, 95) } });
      expect(got.success_rate).toBeCloseTo(ok.length / rs.length, 12);
      if (ok.length === 0) expect(got.latency_ms.mean).toBeNull();
      else expect(got.latency_ms.mean).toBeCloseTo(ok.reduce((s, v) => s + v, 0) / ok.length, 9);
      expect(got.cost_usd.total).toBeCloseTo(total, 12);
      expect(got.cost_usd.per_call).toBeCloseTo(total / rs.length, 12);
      expect(got.score).toBeCloseTo(scores.reduce((s, v) => s + v, 0) / scores.length, 12);
    };
    const quizResults = (model: string) => details.flatMap((d) => d.results as Json[]).filter((r) => r.model === model);

    const comparison = await getJson("/api/v1/benchmarks/comparison?models=gpt-4o-mini,claude-haiku-4-5&set=quiz");
    expect(comparison.prompt_set).toBe("quiz");
    expect(comparison.models.map((m: Json) => m.model)).toEqual(MODELS);
    expectSummary(comparison.models[0], quizResults("gpt-4o-mini"));
    expectSummary(comparison.models[1], quizResults("claude-haiku-4-5"));
    expect(comparison.models[0].calls).toBe(6);
    // Without a set, every run of the model counts: the failed call of the run "one" too.
    const all = await getJson("/api/v1/benchmarks/comparison?models=gpt-4o-mini");
    const oneResults = (await getJson(`/api/v1/benchmarks/${oneRun.id}`)).benchmark.results as Json[];
    expect(all.prompt_set).toBeNull();
    expectSummary(all.models[0], [...quizResults("gpt-4o-mini"), ...oneResults]);
    expect(all.models[0]).toMatchObject({ calls: 7, successes: 6 });

    const history = await getJson("/api/v1/benchmarks/history/gpt-4o-mini?limit=2");
    expect(history).toMatchObject({ model: "gpt-4o-mini", total: 3, limit: 2, offset: 0 });
    expect(history.data.map((h: Json) => h.run_id)).toEqual([second.id, oneRun.id]);
    expect(history.data[0]).toMatchObject({ run_id: second.id, prompt_set: "quiz", status: "succeeded", created_at: second.created_at });
    expectSummary(history.data[0], second.results);
    expectSummary(history.data[1], oneResults);
    const older = await getJson("/api/v1/benchmarks/history/gpt-4o-mini?limit=2&offset=2");
    expect(older.data.map((h: Json) => h.run_id)).toEqual([details[1].id]);
    expectSummary(older.data[0], details[1].results.filter((r: Json) => r.model === "gpt-4o-mini"));
    expect((await getJson("/api/v1/benchmarks/history/never-benchmarked")).data).toEqual([]);
  });

  test("the spend cap stops a run before a call it cannot afford; a cap below one call makes none", async () => {
    const tiny = await finished((await startRun({ models: ["gpt-4o-mini"], prompt_set: "basics", spend_cap_usd: 0.00001 })).id);
    expect(tiny).toMatchObject({ status: "stopped", reason: expect.stringContaining("spend cap reached"), calls_done: 0, spent_usd: 0 });
    expect(w.openai.requests).toEqual([]);

    w.openai.setDefault({ text: "ok", usage: { input: 10, output: 200 } });
    const prompts = Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, prompt: `Count to ${i}.` }));
    const capped = await finished((await startRun({ models: ["gpt-4o-mini"], prompt_set: { name: "capped", prompts }, spend_cap_usd: 0.0004 })).id);
    expect(capped.status).toBe("stopped");
    expect(capped.reason).toMatch(/^spend cap reached: the next call's estimate \(\$[\d.]+\) would take the run's spend \(\$[\d.]+\) past its cap \(\$0\.000400\)$/);
    const made = capped.results as Json[];
    expect(made.length).toBeGreaterThan(0);
    expect(made.length).toBeLessThan(prompts.length);
    // Prompt by prompt: what was made is the set's beginning, and the vendor was called for nothing else.
    expect(made.map((r) => r.prompt_id)).toEqual(prompts.slice(0, made.length).map((p) => p.id));
    expect(w.openai.requests.length).toBe(made.length);
    expect(capped.spent_usd).toBeCloseTo(made.reduce((s, r) => s + r.cost_usd, 0), 12);
    expect(capped.spent_usd).toBeLessThanOrEqual(0.0004);
  });

  test("a run whose instance died is resumed: only its missing calls are made, its recorded spend counted", async () => {
    const store = w.relay.relay.store.benchmarks;
    const now = w.clock.now();
    const id = `bench_resume${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const set = { name: "resume", shipped: false, prompts: QUIZ.prompts.map((p) => ({ ...p, match: p.match as "contains" | "regex" | undefined })) };
    // The result first: its spend is not on the run, as a crash between the two writes would leave it.
    await store.insertResult({ run_id: id, team_id: teamA.id, model: "gpt-4o-mini", prompt_id: "capital", request_id: "req_before_restart", at: now, success: true, status: 200, error: null, latency_ms: 12, cost_usd: 0.25, input_tokens: 1, output_tokens: 1, score: 1, output: "Paris" });
    await store.insertRun({ id, team_id: teamA.id, status: "running", reason: null, models: ["gpt-4o-mini"], prompt_set: set, max_tokens: 64, spend_cap_usd: 1, spent_usd: 0, created_at: now, started_at: now, finished_at: null, lease_until: now + 60_000 });
    w.openai.setDefault((req) => ({ text: rightAnswer(req), usage: USAGE }));

    // Its lease still holds: no runner takes it.
    w.relay.relay.benchmarkRunner.kick();
    await Bun.sleep(200);
    expect(await store.getRun(id)).toMatchObject({ status: "running", lease_until: now + 60_000 });
    expect(w.openai.requests).toEqual([]);

    w.clock.advance(60_001);
    w.relay.relay.benchmarkRunner.kick();
    const run = await finished(id);
    expect(run).toMatchObject({ status: "succeeded", calls_done: 3, started_at: new Date(now).toISOString() });
    expect(w.openai.requests.length).toBe(2);
    expect(run.results.map((r: Json) => r.request_id)[0]).toBe("req_before_restart");
    expect(run.spent_usd).toBeCloseTo(0.25 + 2 * COST["gpt-4o-mini"], 12);
  });

  test("each invalid field is a 400 naming it, and no run is made", async () => {
    const before = (await getJson("/api/v1/benchmarks")).total;
    const ok = { models: ["gpt-4o-mini"], prompt_set: "basics" };
    const set = (prompts: unknown[], extra = {}) => ({ ...ok, prompt_set: { name: "bad", prompts, ...extra } });
    const cases: [unknown, string][] = [
      [{ prompt_set: "basics" }, "models"],
      [{ ...ok, models: [] }, "models"],
      [{ ...ok, models: "gpt-4o-mini" }, "models"],
      [{ ...ok, models: ["a", "b", "c", "d", "e", "f"] }, "models"],
      [{ ...ok, models: ["gpt-4o-mini", "no-such-model-at-all"] }, "models[1]"],
      [{ ...ok, models: ["gpt-4o-mini", "gpt-4o-mini"] }, "models[1]"],
      [{ ...ok, models: [7] }, "models[0]"],
      [{ models: ["gpt-4o-mini"] }, "prompt_set"],
      [{ ...ok, prompt_set: "no-such-set" }, "prompt_set"],
      [{ ...ok, prompt_set: ["x"] }, "prompt_set"],
      [{ ...ok, prompt_set: { name: "basics", prompts: [{ id: "a", prompt: "x" }] } }, "prompt_set.name"],
      [{ ...ok, prompt_set: { name: "has space", prompts: [{ id: "a", prompt: "x" }] } }, "prompt_set.name"],
      [set([]), "prompt_set.prompts"],
      [set(Array.from({ length: 51 }, (_, i) => ({ id: `p${i}`, prompt: "x" }))), "prompt_set.prompts"],
      [set([{ id: "a" }]), "prompt_set.prompts[0].prompt"],
      [set([{ id: "a", prompt: "x".repeat(8001) }]), "prompt_set.prompts[0].prompt"],
      [set([{ prompt: "x" }]), "prompt_set.prompts[0].id"],
      [set([{ id: "not an id", prompt: "x" }]), "prompt_set.prompts[0].id"],
      [set([{ id: "a", prompt: "x" }, { id: "a", prompt: "y" }]), "prompt_set.prompts[1].id"],
      [set([{ id: "a", prompt: "x", system: 3 }]), "prompt_set.prompts[0].system"],
      [set([{ id: "a", prompt: "x", expected: "y", match: "fuzzy" }]), "prompt_set.prompts[0].match"],
      [set([{ id: "a", prompt: "x", match: "exact" }]), "prompt_set.prompts[0].expected"],
      [set([{ id: "a", prompt: "x", expected: "(", match: "regex" }]), "prompt_set.prompts[0].expected"],
      [set([{ id: "a", prompt: "x", expected: "^(a+)+$", match: "regex" }]), "prompt_set.prompts[0].expected"],
      [set([{ id: "a", prompt: "x", expected: "((a)+)+", match: "regex" }]), "prompt_set.prompts[0].expected"],
      [set([{ id: "a", prompt: "x", expected: "y".repeat(501) }]), "prompt_set.prompts[0].expected"],
      [{ ...ok, spend_cap_usd: 0 }, "spend_cap_usd"],
      [{ ...ok, spend_cap_usd: -1 }, "spend_cap_usd"],
      [{ ...ok, spend_cap_usd: "1" }, "spend_cap_usd"],
      [{ ...ok, spend_cap_usd: 100.01 }, "spend_cap_usd"],
      [{ ...ok, max_tokens: 0 }, "max_tokens"],
      [{ ...ok, max_tokens: 1.5 }, "max_tokens"],
      [{ ...ok, max_tokens: 4097 }, "max_tokens"],
    ];
    for (const [body, parameter] of cases) await expectInvalid(await call("POST", "/api/v1/benchmarks/run", teamA.key, body), parameter);
    // The free plan's highest cap is $1.
    await expectInvalid(await call("POST", "/api/v1/benchmarks/run", free, { ...ok, spend_cap_usd: 2 }), "spend_cap_usd");
    const broken = await call("POST", "/api/v1/benchmarks/run", teamA.key, "{");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as Json).error.code).toBe("invalid_request");
    const huge = await call("POST", "/api/v1/benchmarks/run", teamA.key, { ...ok, padding: "x".repeat(300 * 1024) });
    expect(huge.status).toBe(413);
    expect((await getJson("/api/v1/benchmarks")).total).toBe(before);

    await expectInvalid(await call("GET", "/api/v1/benchmarks?limit=0", teamA.key), "limit");
    await expectInvalid(await call("GET", "/api/v1/benchmarks?offset=-1", teamA.key), "offset");
    await expectInvalid(await call("GET", "/api/v1/benchmarks/history/gpt-4o-mini?limit=x", teamA.key), "limit");
    await expectInvalid(await call("GET", "/api/v1/benchmarks/comparison", teamA.key), "models");
    await expectInvalid(await call("GET", "/api/v1/benchmarks/comparison?models=a,,b", teamA.key), "models");
    await expectInvalid(await call("GET", `/api/v1/benchmarks/comparison?models=${Array(11).fill("m").join(",")}`, teamA.key), "models");
    await expectInvalid(await call("GET", "/api/v1/benchmarks/comparison?models=gpt-4o-mini&set=", teamA.key), "set");
  });

  test("a free team's run gets the plan's cap by default; keys, permissions and teams are kept apart", async () => {
    const freeRun = await startRun({ models: ["gpt-4o-mini"], prompt_set: "basics", max_tokens: 16 }, free);
    expect(freeRun.spend_cap_usd).toBe(1);
    await finished(freeRun.id, free);

    // A read-only key reads but cannot start a run; no key or a wrong one is a 401.
    const refused = await call("POST", "/api/v1/benchmarks/run", teamA.readOnly, { models: ["gpt-4o-mini"], prompt_set: "basics" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error.code).toBe("permission_denied");
    const mine = (await getJson("/api/v1/benchmarks", teamA.readOnly)).data as Json[];
    expect(mine.length).toBeGreaterThan(0);
    const paths = ["/api/v1/benchmarks", `/api/v1/benchmarks/${mine[0].id}`, "/api/v1/benchmarks/history/gpt-4o-mini", "/api/v1/benchmarks/comparison?models=gpt-4o-mini"];
    for (const path of paths) expect((await call("GET", path, teamA.readOnly)).status).toBe(200);
    for (const [key, code] of [[undefined, "missing_api_key"], ["rk_live_not-a-real-key-at-all-0000000000000", "invalid_api_key"]] as const) {
      for (const res of [await call("POST", "/api/v1/benchmarks/run", key, {}), ...(await Promise.all(paths.map((p) => call("GET", p, key))))]) {
        expect(res.status).toBe(401);
        expect(((await res.json()) as Json).error.code).toBe(code);
      }
    }

    // Another team sees none of A's runs or results.
    const other = await call("GET", `/api/v1/benchmarks/${mine[0].id}`, teamB);
    expect(other.status).toBe(404);
    expect(((await other.json()) as Json).error.code).toBe("not_found");
    expect(await getJson("/api/v1/benchmarks", teamB)).toEqual({ data: [], total: 0, limit: 50, offset: 0 });
    expect((await getJson("/api/v1/benchmarks/history/gpt-4o-mini", teamB)).total).toBe(0);
    expect((await getJson("/api/v1/benchmarks/comparison?models=gpt-4o-mini", teamB)).models[0]).toMatchObject({ calls: 0, score: null });
    expect(mine.map((r) => r.id)).not.toContain(freeRun.id);
  });
});

describe.each(["sqlite", "postgres"] as const)("a benchmark run across a restart on %s", (driver) => {
  test("a stop puts the running run back in the queue; the next process makes only the calls not recorded", async () => {
    const db = driver === "postgres" ? await postgresDatabase("relay_benchmarks_restart") : undefined;
    const home = mkdtempSync(join(tmpdir(), "relay-bench-restart-"));
    const config = db ? { store: { driver: "postgres", postgresUrl: db.url } } : {};
    const w = await startWorld({ home, config });
    const serve = (relay: typeof w.relay.relay) => listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    try {
      const first = serve(w.relay.relay);
      const team = await createTeam(w.relay.relay.store, "Restart", "pro");
      w.openai.setDefault({ text: "ok", usage: { input: 10, output: 10 }, latencyMs: 300 });
      const prompts = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, prompt: `Prompt ${i}` }));
      const res = await fetch(`${first.url}/api/v1/benchmarks/run`, {
        method: "POST",
        headers: { "x-api-key": team.secret, "content-type": "application/json" },
        body: JSON.stringify({ models: ["gpt-4o-mini"], prompt_set: { name: "slow", prompts } }),
      });
      const id = ((await res.json()) as Json).benchmark.id as string;
      await eventually(async () => ((await w.relay.relay.store.benchmarks.runResults(id)).length >= 2 ? true : undefined), "two recorded calls", 10_000);
      await first.stop(100);
      await w.relay.relay.close();

      const again = await startRelay({
        env: { OPENAI_BASE_URL: `${w.openai.url}/v1`, OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_BASE_URL: w.anthropic.url, ANTHROPIC_API_KEY: "sk-ant-test-anthropic" },
        config,
        clock: w.clock,
        home,
      });
      try {
        const left = await again.relay.store.benchmarks.getRun(id);
        const recorded = (await again.relay.store.benchmarks.runResults(id)).length;
        expect(left).toMatchObject({ status: "queued", lease_until: null });
        expect(recorded).toBeGreaterThanOrEqual(2);
        expect(recorded).toBeLessThan(prompts.length);
        const second = serve(again.relay);
        try {
          const run = await eventually(async () => {
            const body = (await (await fetch(`${second.url}/api/v1/benchmarks/${id}`, { headers: { "x-api-key": team.secret } })).json()) as Json;
            return body.benchmark.status === "succeeded" ? body.benchmark : undefined;
          }, "the resumed run to end", 15_000);
          expect(run.results.map((r: Json) => r.prompt_id)).toEqual(prompts.map((p) => p.id));
          // Calls cut short by the stop were made again; none recorded before it was.
          expect(w.openai.requests.length).toBeGreaterThanOrEqual(prompts.length);
          expect(w.openai.requests.length).toBeLessThanOrEqual(prompts.length + 2);
        } finally {
          await second.stop(100);
        }
      } finally {
        await again.stop();
      }
    } finally {
      await w.stop();
      rmSync(home, { recursive: true, force: true });
      await db?.drop();
    }
  }, 60_000);
});
