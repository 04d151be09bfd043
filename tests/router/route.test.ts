// route(call) → result in-process, the way the hosted API and the workflow engine call it: the caller
// builds a RouteCall and reads a RouteResult, with no Request or Response on its side (the fake
// vendors still speak HTTP). Fallback, a cascade's escalation, a stream, a decoded request and refusals.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { RouteCall } from "../../src/core/router/call.ts";
import { readableOf, type RouteResult } from "../../src/core/router/result.ts";
import { route } from "../../src/core/router/route.ts";
import { chat } from "../strategies/fakes.ts";
import { chatBody, messagesBody, openaiStreamText, runs, startWorld, type World } from "../proxy/world.ts";

const HEDGE = "I'm not sure, I cannot determine that.";
const caller = { surface: "test" };

let w: World;
beforeAll(async () => {
  w = await startWorld({
    config: {
      cooldown: { failures: 100 },
      routing: {
        strategies: {
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

const routeCall = (call: RouteCall): Promise<RouteResult> => route(w.relay.relay, call);

function expectKind<K extends RouteResult["kind"]>(r: RouteResult, kind: K): Extract<RouteResult, { kind: K }> {
  if (r.kind !== kind) throw new Error(`expected ${kind}, got ${r.kind}${r.kind === "error" ? `: ${r.error.code} ${r.error.message}` : ""}`);
  return r as Extract<RouteResult, { kind: K }>;
}

async function textOf(body: Parameters<typeof readableOf>[0]): Promise<string> {
  const reader = readableOf(body).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

describe("route() in-process", () => {
  test("a failing first vendor falls back to the next candidate; the result is data with its routing facts and record", async () => {
    w.anthropic.enqueue({ status: 500, text: "boom" });
    const result = expectKind(await routeCall({ format: "openai", body: chatBody("claude-haiku-4-5", "hi"), caller }), "answer");
    expect(result.facts).toMatchObject({ requestedModel: "claude-haiku-4-5", routedModel: "gpt-4o-mini", provider: "openai", strategy: "fallback", fallbackUsed: true, attempts: 2 });
    expect(result.contentType).toBe("application/json");
    expect(JSON.parse(result.body).choices[0].message.content).toBe("Hello from fake openai");
    expect(result.response.content).toContainEqual(expect.objectContaining({ type: "text", text: "Hello from fake openai" }));
    expect(result.record).toMatchObject({ id: result.facts.requestId, outcome: "ok", status: 200, fallbackUsed: true, routedModel: "gpt-4o-mini" });
    expect(result.record.events.map((e) => e.type)).toEqual(["error", "fallback", "attempt"]);
    expect(result.facts.costUsd).toBeGreaterThan(0);
    expect(result.record.costUsd).toBeCloseTo(result.facts.costUsd, 12);
    // Committed before the result was given.
    expect((await runs(w)).some((r) => r.id === result.facts.requestId)).toBe(true);
  });

  test("a cascade's judge rejects a hedging answer and escalates; both answers are paid for", async () => {
    w.anthropic.enqueue({ text: HEDGE, usage: { input: 100, output: 10 } }, { text: "The answer is 42.", usage: { input: 100, output: 20 } });
    const result = expectKind(await routeCall({ format: "anthropic", body: messagesBody("svc:cascade", "What is the answer?"), caller }), "answer");
    expect(result.facts).toMatchObject({ routedModel: "claude-sonnet-4-5", strategy: "cascade", attempts: 2, fallbackUsed: false });
    expect(JSON.parse(result.body).content[0].text).toBe("The answer is 42.");
    expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    expect(result.record).toMatchObject({ inputTokens: 200, outputTokens: 30 });
    expect(result.record.events).toContainEqual(expect.objectContaining({ type: "escalation", model: "claude-haiku-4-5" }));
  });

  test("a stream starts as a result, is read without a Response, and its record arrives at its end", async () => {
    const result = expectKind(await routeCall({ format: "openai", body: chatBody("gpt-4o-mini", "hi", { stream: true }), caller: { surface: "test", session: "s-1", metadata: { job: 7 } } }), "stream");
    expect(result.contentType).toBe("text/event-stream");
    expect(result.facts).toMatchObject({ routedModel: "gpt-4o-mini", provider: "openai", attempts: 1 });
    const { text, done } = openaiStreamText(await textOf(result.body));
    expect(text).toBe("Hello from fake openai");
    expect(done).toBe(true);
    const record = await result.ended;
    expect(record).toMatchObject({ id: result.facts.requestId, outcome: "ok", stream: true, sessionKey: "s-1", metadata: { job: 7 } });
    expect(record.outputTokens).toBeGreaterThan(0);
  });

  test("a call may carry the request decoded already (no wire body): it is encoded for the vendor", async () => {
    const result = expectKind(await routeCall({ format: "anthropic", request: chat("hi", { model: "claude-haiku-4-5", maxTokens: 32 }), caller }), "answer");
    expect(result.facts.routedModel).toBe("claude-haiku-4-5");
    expect(JSON.parse(result.body).type).toBe("message");
    expect(w.anthropic.requests[0]!.json).toMatchObject({ model: "claude-haiku-4-5", max_tokens: 32 });
  });

  test("refusals are results with a code, a status hint and details, never thrown", async () => {
    const unknown = expectKind(await routeCall({ format: "openai", body: chatBody("no-such-model"), caller }), "error");
    expect(unknown.error).toMatchObject({ code: "model_not_found", status: 400 });
    expect(unknown.error.extra.details?.parameter).toBe("model");
    expect(unknown.record).toBeUndefined();
    const noModel = expectKind(await routeCall({ format: "openai", request: chat("hi", { model: "" }), caller }), "error");
    expect(noModel.error).toMatchObject({ code: "invalid_request", status: 400 });
    const native = expectKind(await routeCall({ format: "anthropic", body: messagesBody("gpt-4o-mini"), caller, nativeOnly: "only this format" }), "error");
    expect(native.error).toMatchObject({ status: 400, message: "only this format" });
    expect(w.anthropic.requests.length + w.openai.requests.length).toBe(0);
  });

  test("a vendor's final failure is a result that carries the run as logged", async () => {
    w.openai.enqueue({ status: 400, text: "bad request from vendor" });
    const failed = expectKind(await routeCall({ format: "openai", body: chatBody("gpt-4o-mini"), caller }), "error");
    expect(failed.error).toMatchObject({ code: "provider_error", status: 400 });
    expect(failed.record).toMatchObject({ outcome: "error", status: 400 });
  });

  test("an aborted signal cancels the call before any vendor is paid", async () => {
    const ac = new AbortController();
    ac.abort();
    const result = expectKind(await routeCall({ format: "openai", body: chatBody("gpt-4o-mini"), caller, signal: ac.signal }), "error");
    expect(result.error.code).toBe("cancelled");
    expect(result.record?.outcome).toBe("cancelled");
    expect(w.openai.requests).toHaveLength(0);
  });
});
