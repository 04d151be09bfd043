// Models newer than the catalog, over HTTP (issue 36, item 2): a model only the price data knows is
// served with its price; one nobody prices is served with its cost unknown (run log and dashboard) and
// counted by budgets at its provider's top price; the vendor's "no such model" is the interface's 400
// Model not found with suggestions, and never cools the provider down.
import { afterEach, describe, expect, test } from "bun:test";
import { topListedPrice } from "../../src/core/catalog/price-list.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { anthropicClient, chatBody, errorOf, getJson, messagesBody, openaiClient, post, readStream, runs, startWorld, type World } from "./world.ts";

let w: World | undefined;
let gemini: FakeVendor | undefined;
afterEach(async () => {
  await w?.stop();
  await gemini?.close();
  w = gemini = undefined;
});

const USAGE = { input: 1_000, output: 100 };
const chat = (world: World, model: string, extra: Record<string, unknown> = {}) => post(world.url, "/v1/chat/completions", chatBody(model, "Say hi", extra));
const dashboard = (world: World, path: string) => getJson(world.url, `/dashboard/api/${path}`, world.relay.admin);
const budgetOf = async (world: World) => (await getJson(world.url, "/control/stats", world.relay.admin)).budget.hourly as { spentUsd: number; reservedUsd: number };

// The vendors' own answers for a model they do not serve (their error docs; see also tests/catalog/newer-models.test.ts).
const anthropic404 = (model: string) => ({ status: 404, raw: { body: JSON.stringify({ type: "error", error: { type: "not_found_error", message: `model: ${model}` } }) } });
const openai404 = (model: string) => ({
  status: 404,
  raw: { body: JSON.stringify({ error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", param: null, code: "model_not_found" } }) },
});
const gemini404 = (model: string) => ({
  status: 404,
  raw: { body: JSON.stringify({ error: { code: 404, message: `models/${model} is not found for API version v1beta, or is not supported for generateContent.`, status: "NOT_FOUND" } }) },
});

describe("a model only the price data lists", () => {
  test("claude-opus-5-5 (Anthropic SDK) and gpt-5.5 (OpenAI SDK) are served and priced from the price data", async () => {
    w = await startWorld();
    w.anthropic.setDefault({ text: "newest", usage: USAGE });
    w.openai.setDefault({ text: "newest", usage: USAGE });
    const message = await anthropicClient(w.url).messages.create({ model: "claude-opus-5-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    expect(message.model).toBe("claude-opus-5-5");
    const { response } = await openaiClient(w.url).chat.completions.create({ model: "gpt-5.5", messages: [{ role: "user", content: "hi" }] }).withResponse();
    // claude-opus-5-5: $4 / $20 per million; gpt-5.5: $5 / $30.
    expect(response.headers.get("x-svc-estimated-cost")).toBe("0.008000");
    expect(w.anthropic.requests[0]!.json.model).toBe("claude-opus-5-5");
    const logged = await runs(w);
    expect(logged.map((r) => [r.routedModel, r.provider, r.costUsd])).toEqual([
      ["gpt-5.5", "openai", expect.closeTo(0.008, 9)],
      ["claude-opus-5-5", "anthropic", expect.closeTo(0.006, 9)],
    ]);
    expect(logged.flatMap((r) => r.events).some((e) => e.type === "cost_unknown")).toBe(false);
  });
});

describe("a model nobody prices", () => {
  test("claude-opus-9 is served; its cost is unknown in the run log and the dashboard, not $0", async () => {
    w = await startWorld();
    w.anthropic.setDefault({ text: "from the future", usage: USAGE });
    const res = await post(w.url, "/v1/messages", messagesBody("claude-opus-9"), { "x-api-key": "sk-ant-client" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).content[0].text).toBe("from the future");
    expect(w.anthropic.requests[0]!.json.model).toBe("claude-opus-9");
    // A priced run beside it shows a price.
    expect((await chat(w, "claude-haiku-4-5")).status).toBe(200);

    const [priced, unknown] = await runs(w);
    expect(unknown).toMatchObject({ routedModel: "claude-opus-9", provider: "anthropic", costUsd: 0, inputTokens: 1_000 });
    expect(unknown!.events.find((e) => e.type === "cost_unknown")).toEqual({ type: "cost_unknown", model: "claude-opus-9", provider: "anthropic", reason: "no listed price: cost logged as unknown ($0)" });
    const page = await dashboard(w, "runs");
    expect(page.runs.map((r: any) => [r.routedModel, r.costUnknown])).toEqual([
      ["claude-haiku-4-5", false],
      ["claude-opus-9", true],
    ]);
    expect((await dashboard(w, `runs/${unknown!.id}`)).costUnknown).toBe(true);
    expect((await dashboard(w, `runs/${priced!.id}`)).costUnknown).toBe(false);
  });

  test("a stream of it is served and logged as cost-unknown too", async () => {
    w = await startWorld();
    w.openai.setDefault({ text: "streamed from the future", usage: USAGE });
    const res = await chat(w, "gpt-9", { stream: true });
    expect(res.status).toBe(200);
    expect((await readStream(res)).text).toContain("future");
    const [run] = await runs(w);
    expect(run).toMatchObject({ routedModel: "gpt-9", provider: "openai", costUsd: 0, stream: true });
    expect(run!.events.map((e) => e.type)).toEqual(["cost_unknown", "attempt"]);
  });

  test("a budget reserves and settles it at its provider's highest listed price, and says so", async () => {
    const top = topListedPrice("anthropic")!;
    w = await startWorld({ config: { limits: { hourlyUsd: 1 } } });
    w.anthropic.setDefault({ text: "ok", usage: USAGE, latencyMs: 300 });
    const pending = chat(w, "claude-opus-9", { max_tokens: 1_000 });
    // In flight: the whole possible output (1,000 tokens) at the top output price, plus the input.
    let reserved = 0;
    for (let i = 0; i < 100 && reserved === 0; i++) reserved = (await budgetOf(w)).reservedUsd || (await Bun.sleep(5), 0);
    expect(reserved).toBeGreaterThanOrEqual((1_000 * top.output) / 1e6);
    expect(reserved).toBeLessThan((1_000 * top.output + 200 * top.input) / 1e6);
    expect((await pending).status).toBe(200);

    const budget = await budgetOf(w);
    expect(budget.reservedUsd).toBe(0);
    expect(budget.spentUsd).toBeCloseTo((USAGE.input * top.input + USAGE.output * top.output) / 1e6, 9);
    const [run] = await runs(w);
    expect(run!.costUsd).toBe(0);
    expect(run!.events.find((e) => e.type === "cost_unknown")?.reason).toContain(`anthropic's highest listed price ($${top.input}/M input, $${top.output}/M output tokens)`);
  });

  test("a budget too small for it at the top price refuses it before any vendor call, while a cheap priced model fits", async () => {
    // claude-opus-9 at $75/M output: even a 256-token cap costs ~$0.019; claude-haiku-4-5's 1,000 tokens cost $0.005.
    w = await startWorld({ config: { limits: { hourlyUsd: 0.01 } } });
    const refused = await chat(w, "claude-opus-9", { max_tokens: 1_000 });
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe("budget_exceeded");
    expect(w.anthropic.requests).toHaveLength(0);
    expect((await chat(w, "claude-haiku-4-5", { max_tokens: 1_000 })).status).toBe(200);
  });
});

describe("the vendor answers that the model does not exist", () => {
  const cooldown = { failures: 2, windowSec: 60, durationSec: 600 };

  test("Anthropic's 404 for a typo is a 400 Model not found with suggestions, more times than cooldown.failures, and the provider still serves", async () => {
    w = await startWorld({ config: { cooldown } });
    w.anthropic.setDefault((req) => (req.json.model === "claude-sonet-4-5" ? anthropic404("claude-sonet-4-5") : { text: "still here" }));
    for (let i = 0; i < cooldown.failures + 2; i++) {
      const res = await post(w.url, "/v1/messages", messagesBody("claude-sonet-4-5", "hi", { stream: i % 2 === 1 }), { "x-api-key": "sk-ant-client" });
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error.message).toBe("Model not found");
      expect(body.suggestions[0]).toBe("claude-sonnet-4-5");
    }
    expect(w.anthropic.requests).toHaveLength(cooldown.failures + 2);
    const served = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5"), { "x-api-key": "sk-ant-client" });
    expect(served.status).toBe(200);
    const status = await getJson(w.url, "/control/status", w.relay.admin);
    expect(status.providers.find((p: any) => p.provider === "anthropic")).toMatchObject({ state: "available", recentFailures: 0 });
    const [, typo] = await runs(w);
    expect(typo).toMatchObject({ status: 400, outcome: "error", routedModel: "claude-sonet-4-5" });
    expect(typo!.events.find((e) => e.type === "error")).toMatchObject({ status: 404, reason: "model: claude-sonet-4-5" });
  });

  test("OpenAI's model_not_found (chat completions, OpenAI SDK) is the same 400", async () => {
    w = await startWorld({ config: { cooldown } });
    w.openai.setDefault((req) => (req.json.model === "gpt-4o-minii" ? openai404("gpt-4o-minii") : { text: "ok" }));
    for (let i = 0; i < cooldown.failures + 1; i++) {
      const res = await chat(w, "gpt-4o-minii");
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({ code: "model_not_found", message: "Model not found" });
      expect(body.suggestions).toContain("gpt-4o-mini");
    }
    const sdk = await openaiClient(w.url)
      .chat.completions.create({ model: "gpt-4o-minii", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e as { status: number; message: string });
    expect(sdk).toMatchObject({ status: 400 });
    expect((await chat(w, "gpt-4o-mini")).status).toBe(200);
  });

  test("Gemini's NOT_FOUND is the same 400", async () => {
    gemini = await startFakeVendor("gemini");
    w = await startWorld({ config: { cooldown }, env: { GEMINI_BASE_URL: gemini.url, GEMINI_API_KEY: "gemini-test-key" } });
    gemini.setDefault((req) => (req.path.includes("gemini-2.5-flsh") ? gemini404("gemini-2.5-flsh") : { text: "ok" }));
    for (let i = 0; i < cooldown.failures + 1; i++) {
      const res = await chat(w, "gemini-2.5-flsh");
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).suggestions).toContain("gemini-2.5-flash");
    }
    expect((await chat(w, "gemini-2.5-flash")).status).toBe(200);
  });

  test("a vendor's other 404 (not naming the model) stays a provider error", async () => {
    w = await startWorld();
    w.anthropic.enqueue({ status: 404, raw: { body: JSON.stringify({ type: "error", error: { type: "not_found_error", message: "Not Found" } }) } });
    const res = await chat(w, "claude-haiku-4-5");
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toStartWith("Provider error");
  });
});
