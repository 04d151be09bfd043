// Budgets through the whole request path (issue 34, item 6): the cap on max_tokens and its header,
// a fallback that reserves again, a stream ended when it outruns its reservation, and an
// overshoot flagged in the run log. Real Relay, real SQLite, the fake vendors.
import { afterEach, describe, expect, test } from "bun:test";
import { chatBody, errorOf, messagesBody, post, readStream, runs, startWorld, type World } from "../proxy/world.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.stop();
  w = undefined;
});

const MINI_MAX = 16_384; // gpt-4o-mini's maximum output in the catalog
const runOf = async (world: World, res: Response) => (await runs(world)).find((r) => r.id === res.headers.get("x-svc-request-id"))!;
const budget = (world: World) => world.relay.relay.budget.status();

describe("the cap on max_tokens", () => {
  test("without a budget nothing is capped and the body goes to the vendor byte for byte", async () => {
    w = await startWorld();
    const raw = '{"model":"gpt-4o-mini", "messages":[{"role":"user","content":"hi"}], "stream_options":{"include_usage":true}, "stream":false, "x_vendor_knob":1}';
    const res = await post(w.url, "/v1/chat/completions", raw);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-max-tokens-capped")).toBeNull();
    expect(w.openai.requests[0]!.bodyText).toBe(raw);
  });

  test("a request whose whole possible output the budget cannot pay for is capped to what it can, and told so", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 0.002 } } });
    // gpt-4o-mini's 16,384 output tokens cost ~$0.0098: the $0.002 budget affords about a fifth.
    const raw = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Write a long essay."}],"x_vendor_knob":{"max_tokens":1}}';
    const res = await post(w.url, "/v1/chat/completions", raw);
    expect(res.status).toBe(200);
    const cap = Number(res.headers.get("x-svc-max-tokens-capped"));
    expect(cap).toBeGreaterThan(3000);
    expect(cap).toBeLessThan(3400);
    // The cap is the only change: spliced into the client's own bytes (passthrough).
    expect(w.openai.requests[0]!.bodyText).toBe(raw.replace("{", `{"max_completion_tokens":${cap},`));
    const run = await runOf(w, res);
    expect(run.events.find((e) => e.type === "budget_cap")?.reason).toStartWith(`max_tokens capped to ${cap}: the budget had $0.002000 left`);
  });

  test("a client's own max_tokens above what remains is capped too, in the Anthropic body", async () => {
    w = await startWorld({ config: { limits: { hourlyUsd: 0.01 } } });
    // claude-haiku-4-5 at $5 per million output tokens: 8,000 tokens would cost $0.04.
    const res = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5", "Write a long essay.", { max_tokens: 8000 }));
    expect(res.status).toBe(200);
    const cap = Number(res.headers.get("x-svc-max-tokens-capped"));
    expect(cap).toBeGreaterThan(1900);
    expect(cap).toBeLessThan(2000);
    expect(w.anthropic.requests[0]!.json.max_tokens).toBe(cap);
  });

  test("when not even a short answer is affordable the request is refused before any vendor call", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 0.0001 } } });
    // 256 output tokens of gpt-4o-mini cost $0.00015.
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "Write a long essay."));
    expect(res.status).toBe(429);
    expect((await errorOf(res)).code).toBe("budget_exceeded");
    expect(w.openai.requests).toHaveLength(0);
  });

  test("a request that fits is sent as it is, with no header", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 1 } } });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 50 }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-max-tokens-capped")).toBeNull();
    expect(w.openai.requests[0]!.json.max_tokens).toBe(50);
    expect((await budget(w)).daily.reservedUsd).toBe(0);
  });
});

describe("fallback", () => {
  const chains = { routing: { strategies: { fallback: { chains: { "gpt-4o-mini": ["gpt-4o"] } } } } };

  test("a fallback to a pricier model reserves again, and is capped to what the budget affords it", async () => {
    w = await startWorld({ config: { ...chains, cooldown: { failures: 100 }, limits: { dailyUsd: 0.01 } } });
    w.openai.enqueue({ status: 500, errorMessage: "down" }, { text: "from the backup", usage: { input: 10, output: 900 } });
    // 2,000 output tokens: $0.0012 on gpt-4o-mini fits; $0.02 on gpt-4o does not.
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 2000 }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-routed-model")).toBe("gpt-4o");
    const cap = Number(res.headers.get("x-svc-max-tokens-capped"));
    expect(cap).toBeGreaterThan(950);
    expect(cap).toBeLessThan(1000);
    expect(w.openai.requests.map((r) => [r.json.model, r.json.max_tokens])).toEqual([
      ["gpt-4o-mini", 2000],
      ["gpt-4o", cap],
    ]);
    const s = await budget(w);
    expect(s.daily.reservedUsd).toBe(0);
    expect(s.daily.spentUsd).toBeCloseTo((10 * 2.5 + 900 * 10) / 1e6, 9);
  });

  test("a fallback the budget cannot afford at all is skipped as refused, and logged", async () => {
    w = await startWorld({ config: { ...chains, cooldown: { failures: 100 }, limits: { dailyUsd: 0.002 } } });
    w.openai.enqueue({ status: 500, errorMessage: "down" });
    // 256 tokens of gpt-4o cost $0.00256, more than the whole budget.
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 2000 }));
    expect(res.status).toBe(500); // the primary's own failure is the answer
    expect(w.openai.requests).toHaveLength(1);
    const run = await runOf(w, res);
    const refused = run.events.find((e) => e.model === "gpt-4o" && e.type === "error");
    expect(refused).toMatchObject({ status: 429 });
    expect(refused!.reason).toContain("budget_exceeded");
    expect((await budget(w)).daily).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
  });
});

describe("a vendor billing past max_tokens", () => {
  test("is flagged in the run log as a budget overshoot", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 1 } } });
    w.openai.enqueue({ text: "far too long", usage: { input: 10, output: 5000 } });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 100 }));
    expect(res.status).toBe(200);
    const run = await runOf(w, res);
    expect(run.events.find((e) => e.type === "budget_overshoot")?.reason).toStartWith("the vendor billed 5000 output tokens past max_tokens 100");
    // Spend is the truth: the whole bill counts.
    expect((await budget(w)).daily.spentUsd).toBeCloseTo(run.costUsd, 9);
  });

  test("an honest answer is not flagged", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 1 } } });
    w.openai.enqueue({ text: "short", usage: { input: 10, output: 100 } });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 100 }));
    expect((await runOf(w, res)).events.map((e) => e.type)).toEqual(["attempt"]);
  });

  const runaway = { text: "word ".repeat(40_000), textChunks: 400, chunkDelayMs: 1, usage: { input: 10, output: 50_000 } };

  test("a stream that outruns its reservation when the budget has nothing left is ended", async () => {
    // max_tokens 1000 of gpt-4o-mini reserves ~$0.0006, most of the $0.0007 budget.
    w = await startWorld({ config: { limits: { dailyUsd: 0.0007 } } });
    // Paced so that the first read holds the first event only, and the cut comes mid-stream.
    w.openai.setDefault({ ...runaway, chunkDelayMs: 10 });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 1000, stream: true }));
    expect(res.status).toBe(200);
    const { text, stalled } = await readStream(res);
    expect(stalled).toBe(false);
    expect(text).toContain("budget_exceeded");
    expect(text.length).toBeLessThan(60_000); // 200 KB were on offer
    const run = await runOf(w, res);
    expect(run.outcome).toBe("error");
    expect(run.error).toContain("budget_exceeded");
    expect(run.events.some((e) => e.type === "budget_overshoot")).toBe(true);
    // The vendor call was cancelled, and its streamed output is what the budget was charged.
    for (let i = 0; i < 50 && w.openai.openConnections() > 0; i++) await Bun.sleep(10);
    expect(w.openai.openConnections()).toBe(0);
    const s = await budget(w);
    expect(s.daily.reservedUsd).toBe(0);
    expect(s.daily.spentUsd).toBeCloseTo(run.costUsd, 9);
    expect(run.costUsd).toBeGreaterThan(0.0006);
  });

  test("one that outruns it before the client has a byte is refused with a 429", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 0.0007 } } });
    w.openai.setDefault({ ...runaway, textChunks: 1 });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 1000, stream: true }));
    expect(res.status).toBe(429);
    expect((await errorOf(res)).code).toBe("budget_exceeded");
    const run = await runOf(w, res);
    expect(run).toMatchObject({ status: 429, outcome: "error" });
    expect(w.openai.requests).toHaveLength(1); // no fallback, no retry
    const s = await budget(w);
    expect(s.daily.reservedUsd).toBe(0);
    expect(s.daily.spentUsd).toBeCloseTo(run.costUsd, 9);
  });

  test("while the budget has room the stream runs on, and the overshoot is flagged", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 1 } } });
    w.openai.setDefault(runaway);
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { max_tokens: 1000, stream: true }));
    const { text } = await readStream(res);
    expect(text).not.toContain("budget_exceeded");
    const run = await runOf(w, res);
    expect(run.outcome).toBe("ok");
    expect(run.outputTokens).toBe(50_000);
    expect(run.events.find((e) => e.type === "budget_overshoot")?.reason).toContain("past max_tokens 1000");
    expect((await budget(w)).daily).toMatchObject({ reservedUsd: 0 });
  });

  test("a piped Anthropic stream is counted too", async () => {
    w = await startWorld({ config: { limits: { dailyUsd: 0.006 } } });
    w.anthropic.setDefault(runaway);
    // max_tokens 1000 of claude-haiku-4-5 reserves ~$0.005 of the $0.006.
    const res = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5", "hi", { max_tokens: 1000, stream: true }));
    const { text } = await readStream(res);
    expect(text).toContain("budget_exceeded");
    expect(text.length).toBeLessThan(100_000); // cut as it streamed, not at its end
    const run = await runOf(w, res);
    expect(run.error).toContain("budget_exceeded");
    expect((await budget(w)).daily.reservedUsd).toBe(0);
  });
});

test(`(the catalog still lists gpt-4o-mini's maximum output as ${MINI_MAX})`, async () => {
  w = await startWorld();
  const list = (await (await fetch(`${w.url}/v1/models`)).json()) as { data: Array<{ id: string; max_output_tokens?: number }> };
  expect(list.data.find((m) => m.id === "gpt-4o-mini")?.max_output_tokens).toBe(MINI_MAX);
});
