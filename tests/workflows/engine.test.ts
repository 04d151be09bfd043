// The run engine (issue 39, item 2) on the portable router against a fake vendor: parallel steps,
// templates, structured output with its repair call, retries, the timeout and the abort signal
// mid-call, the first failure ending the run, and a resumed run.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { defineWorkflow, runWorkflow, type StepResult } from "../../src/core/workflows/index.ts";
import { type FakeVendor, startFakeVendor } from "../fakes/vendor.ts";
import { lastUserText, until, type World, worldOn } from "./world.ts";

let vendor: FakeVendor;
let world: World;
beforeAll(async () => {
  vendor = await startFakeVendor("openai");
});
afterAll(() => vendor.close());
afterEach(async () => {
  await world?.router.close();
  vendor.reset();
});

const REPORT_SCHEMA = {
  type: "object",
  properties: { headline: { type: "string" }, tagCount: { type: "integer" } },
  required: ["headline", "tagCount"],
  additionalProperties: false,
};

/** Two independent steps and one that needs both, with a JSON schema. */
const threeSteps = () =>
  defineWorkflow({
    name: "article",
    steps: [
      { name: "summary", model: "openai:gpt-4o-mini", systemPrompt: "You summarise.", userPrompt: "Summarise: {{input.article.title}}" },
      { name: "tags", model: "openai:gpt-4o-mini", userPrompt: "Tags for: {{ input.article.body }}" },
      {
        name: "report",
        model: "openai:gpt-4o-mini",
        dependsOn: ["summary", "tags"],
        schema: REPORT_SCHEMA,
        userPrompt: "Summary: {{steps.summary.output}}; tags: {{steps.tags.output}}",
      },
    ],
  });

const input = { article: { title: "Cats", body: "about cats" } };

describe("a three-step workflow", () => {
  test("the two independent steps are in flight at once; the dependent one reads their outputs; the result is complete", async () => {
    world = worldOn(vendor);
    vendor.setDefault((req) => {
      const text = lastUserText(req);
      if (text.startsWith("Summarise")) return { text: "A cat story", latencyMs: 800, usage: { input: 10, output: 4 } };
      if (text.startsWith("Tags")) return { text: "cats,pets", latencyMs: 800, usage: { input: 8, output: 2 } };
      return { text: '{"headline":"Cats","tagCount":2}', usage: { input: 20, output: 9 } };
    });
    let mostInFlight = 0;
    const running = runWorkflow(threeSteps(), input, { call: world.call });
    let ended = false;
    void running.then(() => (ended = true));
    while (!ended) {
      mostInFlight = Math.max(mostInFlight, vendor.openConnections());
      await new Promise((r) => setTimeout(r, 5));
    }
    const result = await running;
    expect(mostInFlight).toBe(2);
    expect(result.success).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.finalOutput).toEqual({ headline: "Cats", tagCount: 2 });
    expect(Object.keys(result.steps).sort()).toEqual(["report", "summary", "tags"]);
    expect(result.steps.summary).toMatchObject({ status: "completed", output: "A cat story", model: "openai:gpt-4o-mini", routedModel: "openai:gpt-4o-mini", retries: 0, repaired: false });
    expect(result.steps.summary!.prompt).toEqual({ system: "You summarise.", user: "Summarise: Cats" });
    expect(result.steps.summary!.tokens).toEqual({ input: 10, output: 4, total: 14 });
    expect(result.steps.summary!.cost).toBeGreaterThan(0);
    expect(result.steps.summary!.latency).toBeGreaterThanOrEqual(800);
    expect(result.steps.tags!.prompt).toEqual({ user: "Tags for: about cats" });
    expect(result.steps.report!.prompt.user).toBe("Summary: A cat story; tags: cats,pets");
    // The dependent step started after both: its call is the last the vendor saw, asking for JSON of the schema.
    const last = vendor.requests.at(-1)!;
    expect(lastUserText(last)).toBe("Summary: A cat story; tags: cats,pets");
    expect(last.json.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "report", schema: REPORT_SCHEMA } });
    expect(result.metadata.workflowName).toBe("article");
    expect(result.metadata.startTime).toBeInstanceOf(Date);
    expect(result.metadata.duration).toBe(result.metadata.endTime.getTime() - result.metadata.startTime.getTime());
  });

  test("an answer that does not validate gets one repair call naming the problem; a second bad answer fails the step", async () => {
    world = worldOn(vendor);
    vendor.setDefault((req) => {
      const text = lastUserText(req);
      if (text.startsWith("Summary") && req.json.messages.length === 1) return { text: '{"headline":"Cats"}' };
      if (text.startsWith("Your answer")) return { text: '{"headline":"Cats","tagCount":3}' };
      return { text: "fine" };
    });
    const result = await runWorkflow(threeSteps(), input, { call: world.call });
    expect(result.success).toBe(true);
    expect(result.finalOutput).toEqual({ headline: "Cats", tagCount: 3 });
    expect(result.steps.report).toMatchObject({ repaired: true, retries: 0 });
    const repair = vendor.requests.at(-1)!;
    expect(repair.json.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(repair.json.messages[1].content).toBe('{"headline":"Cats"}');
    expect(lastUserText(repair)).toContain("at /tagCount: expected required property");

    vendor.setDefault((req) => ({ text: lastUserText(req).startsWith("Summary") || lastUserText(req).startsWith("Your") ? "not json at all" : "fine" }));
    const failed = await runWorkflow(threeSteps(), input, { call: world.call });
    expect(failed.success).toBe(false);
    expect(failed.finalOutput).toBeUndefined();
    expect(failed.error).toMatchObject({ stepName: "report", cause: { code: "schema_mismatch" } });
    expect(failed.error!.message).toContain("the answer is not JSON");
    expect(failed.steps.report).toMatchObject({ status: "failed", repaired: true });
  });
});

const oneStep = (retry?: { maxRetries: number; backoffMs?: number }) =>
  defineWorkflow({ name: "one", steps: [{ name: "only", model: "openai:gpt-4o-mini", userPrompt: "hi", retry }] });

describe("retries", () => {
  test("a 503 is retried after the backoff, then the answer is the step's output", async () => {
    world = worldOn(vendor);
    vendor.enqueue({ status: 503, errorMessage: "overloaded" });
    vendor.setDefault({ text: "ok" });
    const result = await runWorkflow(oneStep({ maxRetries: 2, backoffMs: 20 }), {}, { call: world.call });
    expect(result.success).toBe(true);
    expect(result.steps.only).toMatchObject({ output: "ok", retries: 1 });
    expect(vendor.requests).toHaveLength(2);
    expect(vendor.requests[1]!.at - vendor.requests[0]!.at).toBeGreaterThanOrEqual(20);
  });

  test("a 400 is not retried: the run fails at once, naming the step and the vendor's error", async () => {
    world = worldOn(vendor);
    vendor.enqueue({ status: 400, errorMessage: "bad field" });
    const result = await runWorkflow(oneStep({ maxRetries: 3, backoffMs: 1 }), {}, { call: world.call });
    expect(vendor.requests).toHaveLength(1);
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({ stepName: "only", cause: { status: 400, code: "provider_error" } });
    expect(result.error!.message).toContain("bad field");
    expect(result.steps.only).toMatchObject({ status: "failed", retries: 0 });
  });

  test("retries end at maxRetries: the last failure is the step's", async () => {
    world = worldOn(vendor);
    vendor.setDefault({ status: 503, errorMessage: "still down" });
    const result = await runWorkflow(oneStep({ maxRetries: 1, backoffMs: 1 }), {}, { call: world.call });
    expect(vendor.requests).toHaveLength(2);
    expect(result.error).toMatchObject({ stepName: "only", cause: { status: 503 } });
    expect(result.steps.only!.retries).toBe(1);
  });
});

describe("ending a run mid-call", () => {
  test("the timeout ends the run while the vendor never answers, naming the step; the vendor call is aborted", async () => {
    world = worldOn(vendor);
    vendor.setDefault({ fault: "never-answer" });
    const result = await runWorkflow(oneStep(), {}, { call: world.call, timeout: 300 });
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({ message: "the workflow timed out after 300 ms", stepName: "only", cause: { code: "timeout" } });
    expect(result.steps.only!.status).toBe("cancelled");
    expect(result.metadata.duration).toBeGreaterThanOrEqual(300);
    await until(() => vendor.openConnections() === 0);
  });

  test("the caller's abort signal ends the run mid-call", async () => {
    world = worldOn(vendor);
    vendor.setDefault({ fault: "never-answer" });
    const controller = new AbortController();
    const running = runWorkflow(oneStep(), {}, { call: world.call, signal: controller.signal });
    await until(() => vendor.requests.length === 1);
    controller.abort(new Error("user cancelled"));
    const result = await running;
    expect(result.error).toMatchObject({ message: "the workflow was aborted", stepName: "only" });
    expect((result.error!.cause as Error).message).toBe("user cancelled");
    await until(() => vendor.openConnections() === 0);

    // Aborted before it started: no step runs or is named.
    const before = await runWorkflow(oneStep(), {}, { call: world.call, signal: AbortSignal.abort() });
    expect(before.error).toMatchObject({ message: "the workflow was aborted", stepName: undefined });
    expect(before.steps).toEqual({});
    expect(vendor.requests).toHaveLength(1);
  });

  test("the first failure aborts the steps still running: the error names the failed step", async () => {
    world = worldOn(vendor);
    vendor.setDefault((req) => (lastUserText(req).startsWith("Tags") ? { status: 400, errorMessage: "no tags", latencyMs: 100 } : { fault: "never-answer" }));
    const result = await runWorkflow(threeSteps(), input, { call: world.call });
    expect(result.error).toMatchObject({ stepName: "tags", cause: { status: 400 } });
    expect(result.steps.summary!.status).toBe("cancelled");
    expect(result.steps.report).toBeUndefined();
    await until(() => vendor.openConnections() === 0);
  });
});

describe("templates", () => {
  test("a path the input lacks fails the step before any vendor call, naming the variable", async () => {
    world = worldOn(vendor);
    const result = await runWorkflow(threeSteps(), { article: { title: "Cats" } }, { call: world.call });
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({ stepName: "tags", cause: { code: "template_error" } });
    expect(result.error!.message).toContain("{{input.article.body}} has no value");
    expect(vendor.requests.some((r) => lastUserText(r).startsWith("Tags"))).toBe(false);
  });

  test("a path into a step's JSON output and non-string values as JSON", async () => {
    world = worldOn(vendor);
    vendor.setDefault((req) => ({ text: lastUserText(req).startsWith("first") ? '{"a":{"b":[1,2]},"n":7}' : "done" }));
    const workflow = defineWorkflow({
      name: "paths",
      steps: [
        { name: "first", model: "openai:gpt-4o-mini", userPrompt: "first {{input.x}}", schema: { type: "object" } },
        { name: "second", model: "openai:gpt-4o-mini", dependsOn: ["first"], userPrompt: "b={{steps.first.output.a.b}} n={{steps.first.output.n}} in={{input}}" },
      ],
    });
    const result = await runWorkflow(workflow, { x: true }, { call: world.call });
    expect(result.steps.first!.prompt.user).toBe("first true");
    expect(result.steps.second!.prompt.user).toBe('b=[1,2] n=7 in={"x":true}');
    expect(result.finalOutput).toBe("done");
  });
});

describe("durability hooks", () => {
  test("onStepDone hears each completed step; a run resumed with completed steps does not call them again", async () => {
    world = worldOn(vendor);
    vendor.setDefault((req) => ({ text: lastUserText(req).startsWith("Summary") ? '{"headline":"H","tagCount":1}' : "part" }));
    const done: Array<[string, StepResult]> = [];
    const storedAt: Record<string, number> = {};
    const onStepDone = async (name: string, r: StepResult) => {
      // One hook much slower than the other: a dependent started on the fast one's result alone would show.
      await new Promise((resolve) => setTimeout(resolve, name === "tags" ? 300 : 10));
      storedAt[name] = Date.now();
      done.push([name, r]);
    };
    const first = await runWorkflow(threeSteps(), input, { call: world.call, onStepDone });
    expect(first.success).toBe(true);
    expect(done.map(([n]) => n).slice(0, 2).sort()).toEqual(["summary", "tags"]);
    expect(done.map(([n]) => n)[2]).toBe("report");
    // The dependent step was called only once both of its dependencies' results were stored.
    expect(vendor.requests.at(-1)!.at).toBeGreaterThanOrEqual(Math.max(storedAt.summary!, storedAt.tags!));

    // Resume as a store would after a crash past the two first steps.
    vendor.reset();
    vendor.setDefault({ text: '{"headline":"again","tagCount":5}' });
    const completed = Object.fromEntries(done.slice(0, 2));
    const resumed = await runWorkflow(threeSteps(), input, { call: world.call, completed });
    expect(vendor.requests).toHaveLength(1);
    expect(lastUserText(vendor.requests[0]!)).toBe("Summary: part; tags: part");
    expect(resumed.steps.summary).toEqual(completed.summary!);
    expect(resumed.finalOutput).toEqual({ headline: "again", tagCount: 5 });
  });

  test("an onStepDone that fails fails the run, naming the step it could not keep; nothing after it runs", async () => {
    world = worldOn(vendor);
    const twoSteps = defineWorkflow({ name: "two", steps: [{ name: "first", model: "openai:gpt-4o-mini" }, { name: "second", model: "openai:gpt-4o-mini", dependsOn: ["first"] }] });
    const result = await runWorkflow(twoSteps, { q: 1 }, { call: world.call, onStepDone: () => Promise.reject(new Error("store down")) });
    expect(result.error).toMatchObject({ message: 'onStepDone failed for step "first": store down', stepName: "first" });
    expect(result.steps.first!.status).toBe("completed");
    expect(result.steps.second).toBeUndefined();
    // Without a userPrompt the user message is the input as JSON.
    expect(vendor.requests.map(lastUserText)).toEqual(['{"q":1}']);
  });

  test("a completed result for a step the workflow lacks is refused", async () => {
    world = worldOn(vendor);
    const stray = { status: "completed", model: "openai:x", tokens: { input: 0, output: 0, total: 0 }, cost: 0, latency: 0, retries: 0, repaired: false, prompt: { user: "" } } as const;
    await expect(runWorkflow(oneStep(), {}, { call: world.call, completed: { other: stray } })).rejects.toThrow('completed: workflow "one" has no step "other"');
  });
});
