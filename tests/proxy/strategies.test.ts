// Routing strategies end to end: complexity tiers, cascade escalation, and
// fallback across vendors (also mid-stream, before the first byte).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { costOf } from "../../src/core/catalog/cost.ts";
import { anthropicStreamText, chatBody, messagesBody, openaiClient, openaiStreamText, post, readStream, runs, startWorld, type World } from "./world.ts";

const TIERS = { simple: "claude-haiku-4-5", moderate: "claude-sonnet-4-5", complex: "claude-opus-4-5" };
const PROOF_PROMPT =
  "Prove rigorously by induction that the sum of the first n odd numbers equals n^2, then derive a closed-form expression for the sum of the first n squares and justify every step of the derivation.";
const HEDGE = "I'm not sure, I cannot determine that.";

let w: World;
beforeAll(async () => {
  w = await startWorld({
    config: {
      cooldown: { failures: 100 },
      routing: {
        strategies: {
          complexity: { tiers: TIERS },
          cascade: { chain: ["claude-haiku-4-5", "claude-sonnet-4-5"], maxEscalations: 1 },
          fallback: { chains: { "claude-haiku-4-5": ["gpt-4o-mini"] } },
        },
      },
    },
  });
});
afterAll(() => w.stop());
beforeEach(() => {
  w.anthropic.reset();
  w.openai.reset();
});

describe("complexity (svc:auto)", () => {
  test("a trivial prompt goes to the simple tier's model", async () => {
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:auto", "hi"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-complexity-tier")).toBe("simple");
    expect(res.headers.get("x-svc-routed-model")).toBe(TIERS.simple);
    expect(res.headers.get("x-svc-strategy")).toBe("complexity");
    expect(res.headers.get("x-svc-routing-reasons")).toContain("simple tier");
    expect(w.anthropic.requests[0]!.json.model).toBe(TIERS.simple);
    const run = (await runs(w)).find((r) => r.id === res.headers.get("x-svc-request-id"))!;
    expect(run.tier).toBe("simple");
    expect(run.routedModel).toBe(TIERS.simple);
    expect(run.reasons[0]).toContain("simple tier");
  });

  test("a proof/derivation prompt goes to the complex tier's model", async () => {
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:auto", PROOF_PROMPT));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-complexity-tier")).toBe("complex");
    expect(res.headers.get("x-svc-routed-model")).toBe(TIERS.complex);
    const reasons = res.headers.get("x-svc-routing-reasons")!;
    expect(reasons).toContain("complex tier");
    expect(reasons).toContain("proof cues");
    const run = (await runs(w)).find((r) => r.id === res.headers.get("x-svc-request-id"))!;
    expect(run.tier).toBe("complex");
    expect(run.reasons.some((r) => r.startsWith("proof cues"))).toBe(true);
  });
});

describe("cascade (svc:cascade)", () => {
  test("a hedging answer escalates to the next chain model", async () => {
    w.anthropic.enqueue({ text: HEDGE, usage: { input: 100, output: 10 } }, { text: "The answer is 42.", usage: { input: 100, output: 20 } });
    const { data, response } = await openaiClient(w.url).chat.completions.create({ model: "svc:cascade", messages: [{ role: "user", content: "What is the answer?" }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe("The answer is 42.");
    expect(response.headers.get("x-svc-attempts")).toBe("2");
    expect(response.headers.get("x-svc-routed-model")).toBe("claude-sonnet-4-5");
    expect(w.anthropic.requests.map((r) => r.json.model)).toEqual(["claude-haiku-4-5", "claude-sonnet-4-5"]);
    const run = (await runs(w)).find((r) => r.id === response.headers.get("x-svc-request-id"))!;
    expect(run.attempts).toBe(2);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "escalation", model: "claude-haiku-4-5", reason: "uncertain answer" }));
    // The rejected answer was paid for too: tokens and cost cover both calls.
    expect(run.inputTokens).toBe(200);
    expect(run.outputTokens).toBe(30);
    const haiku = w.relay.relay.catalog.resolve("claude-haiku-4-5")!;
    const sonnet = w.relay.relay.catalog.resolve("claude-sonnet-4-5")!;
    const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(run.costUsd).toBeCloseTo(costOf(haiku, usage(100, 10)) + costOf(sonnet, usage(100, 20)), 12);
  });

  // Guards against counting the served answer twice: when every later model fails, the strongest
  // rejected answer is served, and its cost is the answer's, no longer also a rejected one's.
  test("when the next model fails, the rejected answer is served and paid for once", async () => {
    w.anthropic.enqueue({ text: HEDGE, usage: { input: 100, output: 10 } }, { status: 500, text: "boom" });
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:cascade", "What is the answer?"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-routed-model")).toBe("claude-haiku-4-5");
    const haiku = w.relay.relay.catalog.resolve("claude-haiku-4-5")!;
    const cost = costOf(haiku, { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(Number(res.headers.get("x-svc-estimated-cost"))).toBeCloseTo(cost, 6);
    const run = (await runs(w)).find((r) => r.id === res.headers.get("x-svc-request-id"))!;
    expect(run.inputTokens).toBe(100);
    expect(run.outputTokens).toBe(10);
    expect(run.costUsd).toBeCloseTo(cost, 12);
  });

  test("a confident first answer is kept", async () => {
    w.anthropic.enqueue({ text: "Paris." });
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:cascade", "Capital of France?"));
    expect(res.headers.get("x-svc-attempts")).toBe("1");
    expect(res.headers.get("x-svc-routed-model")).toBe("claude-haiku-4-5");
    expect(w.anthropic.requests).toHaveLength(1);
  });

  test("a streaming cascade request is served by complexity routing", async () => {
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:cascade", "hi", { stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-strategy")).toBe("complexity");
    expect(res.headers.get("x-svc-complexity-tier")).toBe("simple");
    const { text, done } = openaiStreamText(await res.text());
    expect(text).toBe("Hello from fake anthropic");
    expect(done).toBe(true);
  });
});

describe("streams", () => {
  // Guards the fix in stream-pump.ts: a vendor chunk that translates to no client bytes (OpenAI's
  // finish_reason held back until the usage chunk) must not leave pull() waiting forever.
  test("a vendor-paced OpenAI stream reaches an OpenAI client in full (translated for usage)", async () => {
    w.openai.enqueue({ text: "one two three four five", textChunks: 5, chunkDelayMs: 20 });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "count", { stream: true }));
    expect(res.status).toBe(200);
    const { text, stalled } = await readStream(res, 1500);
    expect(stalled).toBe(false);
    expect(openaiStreamText(text)).toEqual({ text: "one two three four five", done: true, errored: false });
  });

  test("a vendor-paced Anthropic stream reaches an Anthropic client in full (passthrough)", async () => {
    w.anthropic.enqueue({ text: "one two three four five", textChunks: 5, chunkDelayMs: 20 });
    const res = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5", "count", { stream: true }), { "x-api-key": "k" });
    const { text, stalled } = await readStream(res);
    expect(stalled).toBe(false);
    expect(anthropicStreamText(text)).toEqual({ text: "one two three four five", complete: true });
  });
});

describe("fallback", () => {
  async function streamThroughSdk(model: string) {
    const { data: stream, response } = await openaiClient(w.url)
      .chat.completions.create({ model, messages: [{ role: "user", content: "Say hi" }], stream: true })
      .withResponse();
    let text = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    return { text, finish, response };
  }

  test("a 529 overloaded Anthropic vendor falls back to OpenAI during a stream, before the first byte", async () => {
    w.anthropic.enqueue({ status: 529, errorType: "overloaded_error" });
    w.openai.enqueue({ text: "streamed by the backup", textChunks: 4 });
    const { text, finish, response } = await streamThroughSdk("claude-haiku-4-5");
    expect(text).toBe("streamed by the backup");
    expect(finish).toBe("stop");
    expect(response.headers.get("x-svc-fallback-used")).toBe("true");
    expect(response.headers.get("x-svc-routed-model")).toBe("gpt-4o-mini");
    expect(response.headers.get("x-svc-attempts")).toBe("2");
    expect(w.openai.requests[0]!.json).toMatchObject({ model: "gpt-4o-mini", stream: true });
  });

  test("an HTTP 200 stream whose first event is an overloaded error still falls back", async () => {
    w.anthropic.enqueue({ raw: { chunks: ['{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'] } });
    w.openai.enqueue({ text: "rescued" });
    const { text, finish, response } = await streamThroughSdk("claude-haiku-4-5");
    expect(w.anthropic.requests).toHaveLength(1);
    expect(text).toBe("rescued");
    expect(finish).toBe("stop");
    expect(response.headers.get("x-svc-fallback-used")).toBe("true");
    const run = (await runs(w)).find((r) => r.id === response.headers.get("x-svc-request-id"))!;
    expect(run.fallbackUsed).toBe(true);
    expect(run.events.map((e) => e.type)).toEqual(["error", "fallback", "attempt"]);
  });

  test("the client's own 4xx is never retried on another vendor", async () => {
    w.anthropic.enqueue({ status: 400, errorMessage: "messages: roles must alternate" });
    const res = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toBe("Provider error: messages: roles must alternate");
    expect(w.openai.requests).toHaveLength(0);
  });

  test("a Retry-After within the cap is honoured on the last candidate", async () => {
    w.openai.enqueue({ status: 429, headers: { "retry-after": "1" } }, { text: "after waiting" });
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe("after waiting");
    expect(res.headers.get("x-svc-attempts")).toBe("2");
    expect(w.openai.requests).toHaveLength(2);
    // The second waited out the vendor's Retry-After: that wait is not Relay's overhead.
    expect(Number(res.headers.get("x-svc-overhead-ms"))).toBeLessThan(500);
  });
});
