import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFakeVendor } from "./vendor.ts";

const vendor = await startFakeVendor("openai");
const client = new OpenAI({ apiKey: "sk-test", baseURL: `${vendor.url}/v1`, maxRetries: 0 });
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

const ask = { model: "gpt-test", messages: [{ role: "user" as const, content: "hi" }] };
const parallel = {
  toolCalls: [
    { id: "call_a", name: "weather", args: { city: "Paris", days: 2 } },
    { id: "call_b", name: "time", args: { zone: "Europe/Paris" } },
  ],
  usage: { input: 50, cacheRead: 150, cacheWrite: 0, output: 30, reasoning: 10 },
};

describe("openai fake, official client", () => {
  test("non-stream text with cached usage (prompt_tokens includes cached)", async () => {
    vendor.enqueue({ text: "Bonjour", usage: { input: 10, cacheRead: 90, output: 5, reasoning: 2 }, model: "gpt-reported" });
    const res = await client.chat.completions.create(ask);
    expect(res.object).toBe("chat.completion");
    expect(res.model).toBe("gpt-reported");
    expect(res.choices[0].message.content).toBe("Bonjour");
    expect(res.choices[0].finish_reason).toBe("stop");
    expect(res.usage?.prompt_tokens).toBe(100);
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(90);
    expect(res.usage?.completion_tokens_details?.reasoning_tokens).toBe(2);
    expect(res.usage?.total_tokens).toBe(105);
    expect(vendor.requests[0].json.model).toBe("gpt-test");
    expect(vendor.requests[0].headers.authorization).toBe("Bearer sk-test");
  });

  test("non-stream parallel tool calls", async () => {
    vendor.enqueue(parallel);
    const res = await client.chat.completions.create(ask);
    const calls = res.choices[0].message.tool_calls!;
    expect(res.choices[0].finish_reason).toBe("tool_calls");
    expect(calls.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    expect(calls.map((c) => (c.type === "function" ? JSON.parse(c.function.arguments) : null))).toEqual([
      { city: "Paris", days: 2 },
      { zone: "Europe/Paris" },
    ]);
  });

  test("stream text with include_usage: role first, deltas, finish, usage chunk with no choices", async () => {
    vendor.enqueue({ text: "one two three four", textChunks: 4, usage: { input: 3, cacheRead: 7, output: 4 } });
    const stream = await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("one two three four");
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(4);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe("stop");
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.prompt_tokens).toBe(10);
    expect(last.usage?.prompt_tokens_details?.cached_tokens).toBe(7);
  });

  test("stream without include_usage has no usage chunk", async () => {
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? "").join("")).toBe("Hello from fake openai");
  });

  test("stream parallel tool calls accumulate through the SDK's own stream helper", async () => {
    vendor.enqueue(parallel);
    const runner = client.chat.completions.stream({ ...ask, stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    const calls = final.choices[0].message.tool_calls!;
    expect(final.choices[0].finish_reason).toBe("tool_calls");
    expect(calls.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    expect(calls.map((c) => (c.type === "function" ? [c.function.name, JSON.parse(c.function.arguments)] : null))).toEqual([
      ["weather", { city: "Paris", days: 2 }],
      ["time", { zone: "Europe/Paris" }],
    ]);
    expect(final.usage?.prompt_tokens).toBe(200);
    expect(final.usage?.completion_tokens_details?.reasoning_tokens).toBe(10);
  });

  test("prefixed OpenAI-compatible paths (groq /openai/v1) and model listing", async () => {
    const groq = new OpenAI({ apiKey: "gsk", baseURL: `${vendor.url}/openai/v1`, maxRetries: 0 });
    const res = await groq.chat.completions.create(ask);
    expect(res.choices[0].message.content).toBe("Hello from fake openai");
    expect(vendor.requests[0].path).toBe("/openai/v1/chat/completions");
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
  });

  test("error status renders the OpenAI error shape, headers pass through", async () => {
    vendor.enqueue({ status: 429, errorMessage: "slow down", headers: { "retry-after": "7" } });
    const err = (await client.chat.completions.create(ask).catch((e) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.headers?.get("retry-after")).toBe("7");
    expect((err.error as any).message).toBe("slow down");
  });

  test("unknown path is a 404 in the OpenAI error shape", async () => {
    const res = await fetch(`${vendor.url}/v1/nope`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as any;
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error).toHaveProperty("param");
  });
});
