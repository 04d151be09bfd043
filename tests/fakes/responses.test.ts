// The OpenAI fake's Responses API endpoint, read by the official client: whole responses and the
// typed event stream, as the SDK's own accumulator sees them.
import { afterAll, beforeEach, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFakeVendor } from "./vendor.ts";

const vendor = await startFakeVendor("openai");
const client = new OpenAI({ apiKey: "sk-test", baseURL: `${vendor.url}/v1`, maxRetries: 0 });
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

test("a whole response: reasoning, text and usage with cached and reasoning tokens", async () => {
  vendor.enqueue({ text: "Bonjour", thinking: { text: "greet", signature: "enc" }, usage: { input: 10, cacheRead: 90, output: 5, reasoning: 2 } });
  const res = await client.responses.create({ model: "gpt-test", input: "hi" });
  expect(res.object).toBe("response");
  expect(res.id).toStartWith("resp_");
  expect(res.status).toBe("completed");
  expect(res.output_text).toBe("Bonjour");
  expect(res.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
  expect(res.usage).toMatchObject({ input_tokens: 100, input_tokens_details: { cached_tokens: 90 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 105 });
  expect(vendor.requests[0]!.path).toBe("/v1/responses");
});

test("a stream of function calls ends with response.completed holding every item", async () => {
  vendor.enqueue({ toolCalls: [{ id: "call_a", name: "weather", args: { city: "Paris" } }, { id: "call_b", name: "time", args: { zone: "UTC" } }] });
  const stream = await client.responses.create({ model: "gpt-test", input: "hi", stream: true });
  const types: string[] = [];
  let args = "";
  let final: OpenAI.Responses.Response | undefined;
  for await (const e of stream) {
    types.push(e.type);
    if (e.type === "response.function_call_arguments.delta" && e.output_index === 0) args += e.delta;
    if (e.type === "response.completed") final = e.response;
  }
  expect(types[0]).toBe("response.created");
  expect(types.at(-1)).toBe("response.completed");
  expect(JSON.parse(args)).toEqual({ city: "Paris" });
  expect(final!.output.map((i) => (i.type === "function_call" ? [i.call_id, i.name, JSON.parse(i.arguments)] : i.type))).toEqual([
    ["call_a", "weather", { city: "Paris" }],
    ["call_b", "time", { zone: "UTC" }],
  ]);
});

test("a cut answer is incomplete; chat completions are still served beside it", async () => {
  vendor.enqueue({ text: "partial", stopReason: "length" });
  const res = await client.responses.create({ model: "gpt-test", input: "hi" });
  expect(res.status).toBe("incomplete");
  expect(res.incomplete_details).toEqual({ reason: "max_output_tokens" });
  const chat = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
  expect(chat.object).toBe("chat.completion");
});
