// POST /v1/responses and GET/DELETE /v1/responses/{id} with the official `openai` client against a
// real Relay and fake vendors: translated to Anthropic and back (whole, streamed, tools,
// instructions), passed to OpenAI byte for byte, stored responses (retrieve, delete, store: false)
// and previous_response_id, rebuilt from Relay's store or left to the vendor that issued it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { Value } from "@sinclair/typebox/value";
import { ResponseDeleted, ResponseObject } from "../../src/surfaces/openapi/responses-schemas.ts";
import { OpenAIError } from "../../src/surfaces/schemas.ts";
import { errorOf, openaiClient, post, readStream, runs, startWorld, type World } from "./world.ts";

let w: World;
let client: OpenAI;

beforeAll(async () => {
  w = await startWorld();
  client = openaiClient(w.url);
});
afterAll(() => w.stop());
beforeEach(() => {
  w.anthropic.reset();
  w.openai.reset();
});

const weather: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

const lastBody = (vendor: World["anthropic"]) => vendor.requests.at(-1)!.json;
const stored = (id: string) => w.relay.relay.store.responses.get(id);

describe("translated to Anthropic", () => {
  test("a whole answer: instructions become the system prompt, the answer is kept and retrievable", async () => {
    w.anthropic.enqueue({ text: "Blue", usage: { input: 20, cacheRead: 5, output: 3 } });
    const { data: res, response } = await client.responses.create({ model: "claude-haiku-4-5", instructions: "Answer in one word.", input: "Name a colour" }).withResponse();
    expect(res.object).toBe("response");
    expect(res.id).toStartWith("resp_");
    expect(res.output_text).toBe("Blue");
    expect(res.usage).toMatchObject({ input_tokens: 25, input_tokens_details: { cached_tokens: 5 }, output_tokens: 3 });
    expect(response.headers.get("x-svc-provider")).toBe("anthropic");
    expect(response.headers.get("x-svc-routed-model")).toBe("claude-haiku-4-5");
    expect(lastBody(w.anthropic).system).toBe("Answer in one word.");
    expect(lastBody(w.anthropic).messages).toEqual([{ role: "user", content: [{ type: "text", text: "Name a colour" }] }]);

    const again = await client.responses.retrieve(res.id);
    expect(again.id).toBe(res.id);
    expect(again.output_text).toBe("Blue");
    expect(again.usage).toEqual(res.usage);
    expect((await stored(res.id))!.input).toEqual([{ role: "user", content: "Name a colour" }]);

    const run = (await runs(w)).find((r) => r.id === response.headers.get("x-svc-request-id"));
    expect(run).toMatchObject({ clientFormat: "responses", provider: "anthropic", inputTokens: 20, cacheReadTokens: 5, outputTokens: 3, status: 200 });
  });

  test("a stream of a tool call: the Responses events in order, and the response kept before the last one arrives", async () => {
    w.anthropic.enqueue({ toolCalls: [{ id: "toolu_paris", name: "weather", args: { city: "Paris" } }] });
    const stream = await client.responses.create({ model: "claude-haiku-4-5", input: "Weather in Paris?", tools: [weather], stream: true });
    const types: string[] = [];
    let args = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.function_call_arguments.delta") args += e.delta;
      if (e.type === "response.completed") {
        completed = e.response;
        // The client may continue from it as soon as it reads this event.
        expect(await stored(e.response.id)).toBeDefined();
      }
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.function_call_arguments.delta");
    expect(types.at(-1)).toBe("response.completed");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(lastBody(w.anthropic).tools).toMatchObject([{ name: "weather", description: "The weather in a city", input_schema: weather.parameters }]);
    const call = completed!.output.find((i) => i.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect([call.call_id, call.name]).toEqual(["toolu_paris", "weather"]);
    const kept = await client.responses.retrieve(completed!.id);
    expect(kept.output).toEqual(completed!.output);
  });

  test("previous_response_id: the conversation is rebuilt from Relay's store, tool call and output included", async () => {
    w.anthropic.enqueue({ toolCalls: [{ id: "toolu_1", name: "weather", args: { city: "Oslo" } }] }, { text: "It is snowing in Oslo." });
    const first = await client.responses.create({ model: "claude-haiku-4-5", input: "Weather in Oslo?", tools: [weather] });
    const second = await client.responses.create({
      model: "claude-haiku-4-5",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "toolu_1", output: "snow, -3°C" }],
      tools: [weather],
    });
    expect(second.output_text).toBe("It is snowing in Oslo.");
    expect(lastBody(w.anthropic).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "snow, -3°C" }] }] },
    ]);

    // A third turn served by OpenAI gets the whole conversation: the ids were Relay's, not OpenAI's.
    await client.responses.create({ model: "gpt-4o-mini", previous_response_id: second.id, input: "And tomorrow?" });
    const sent = lastBody(w.openai);
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input.map((i: any) => i.type ?? i.role)).toEqual(["user", "function_call", "function_call_output", "message", "user"]);
    expect(sent.input.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(sent.input.at(-1))).toContain("And tomorrow?");
  });
});

describe("passed through to OpenAI", () => {
  test("a whole answer, byte for byte both ways", async () => {
    const recorded = w.openai.replayFixture("openai/responses__openai-reasoning-encrypted-content.1.json");
    w.openai.enqueue(recorded);
    const body = '{"model":"gpt-4o-mini","input":[{"role":"user","content":"What is (12+7)*3*10?"}],"reasoning":{"effort":"low","summary":"auto"},"include":["reasoning.encrypted_content"]}';
    const res = await post(w.url, "/v1/responses", body);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-provider")).toBe("openai");
    expect(await res.text()).toBe(recorded.raw!.body!);
    expect(w.openai.requests.at(-1)!.path).toBe("/v1/responses");
    expect(w.openai.requests.at(-1)!.bodyText).toBe(body);
    const id = JSON.parse(recorded.raw!.body!).id;
    expect((await client.responses.retrieve(id)).output_text).toBe("12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570");
  });

  test("a stream, byte for byte, kept as its final event gives it, its usage in the run log", async () => {
    const recorded = w.openai.replayFixture("openai/responses__openai-client-tool-search.2.chunks.txt");
    w.openai.enqueue(recorded, recorded);
    const body = '{"model":"gpt-4o-mini","input":"Find the weather tool and use it for Paris","stream":true}';
    const direct = await (await post(w.openai.url, "/v1/responses", body)).text();
    const res = await post(w.url, "/v1/responses", body);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const { text, stalled } = await readStream(res);
    expect(stalled).toBe(false);
    expect(text).toBe(direct);
    expect(w.openai.requests.at(-1)!.bodyText).toBe(body);
    const final = JSON.parse(recorded.raw!.chunks!.at(-1)!).response;
    expect(final.output.map((i: { type: string }) => i.type)).toEqual(["function_call"]);
    expect((await client.responses.retrieve(final.id)).output).toEqual(final.output);
    const run = (await runs(w)).find((r) => r.id === res.headers.get("x-svc-request-id"))!;
    expect(run).toMatchObject({ clientFormat: "responses", provider: "openai", stream: true, outputTokens: final.usage.output_tokens });
  });

  test("a final event that lists no output (as some vendors send): the items' own done events are kept", async () => {
    const chunks = w.openai.replayFixture("openai/responses__openai-client-tool-search.2.chunks.txt").raw!.chunks!;
    const last = JSON.parse(chunks.at(-1)!);
    const items = chunks.filter((c) => c.includes('"response.output_item.done"')).map((c) => JSON.parse(c).item);
    w.openai.enqueue({ raw: { chunks: [...chunks.slice(0, -1), JSON.stringify({ ...last, response: { ...last.response, output: [] } })] } });
    const stream = await client.responses.create({ model: "gpt-4o-mini", input: "Find the weather tool", stream: true });
    for await (const _ of stream);
    expect(items.length).toBeGreaterThan(0);
    expect((await client.responses.retrieve(last.response.id)).output).toEqual(items);
  });

  test("previous_response_id that OpenAI issued goes to OpenAI as sent; a turn elsewhere is rebuilt", async () => {
    w.openai.enqueue({ text: "Paris." }, { text: "About 2.1 million." });
    const first = await client.responses.create({ model: "gpt-4o-mini", input: "Capital of France?" });
    const body = JSON.stringify({ model: "gpt-4o-mini", previous_response_id: first.id, input: "Its population?" });
    const second = await post(w.url, "/v1/responses", body);
    expect(second.status).toBe(200);
    expect(w.openai.requests.at(-1)!.bodyText).toBe(body);
    const secondId = ((await second.json()) as { id: string }).id;

    w.anthropic.enqueue({ text: "Yes." });
    await client.responses.create({ model: "claude-haiku-4-5", previous_response_id: secondId, input: "Is that right?" });
    expect(lastBody(w.anthropic).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Capital of France?" }] },
      { role: "assistant", content: [{ type: "text", text: "Paris." }] },
      { role: "user", content: [{ type: "text", text: "Its population?" }] },
      { role: "assistant", content: [{ type: "text", text: "About 2.1 million." }] },
      { role: "user", content: [{ type: "text", text: "Is that right?" }] },
    ]);
  });
});

describe("stored responses", () => {
  test("delete answers OpenAI's deletion object; the response is gone", async () => {
    const res = await client.responses.create({ model: "claude-haiku-4-5", input: "hi" });
    const deleted = await client.responses.delete(res.id).asResponse();
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: res.id, object: "response", deleted: true });
    expect(await stored(res.id)).toBeUndefined();
    expect(await client.responses.retrieve(res.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("store: false keeps nothing, whole or streamed, and a later turn cannot continue it", async () => {
    const whole = await client.responses.create({ model: "claude-haiku-4-5", input: "hi", store: false });
    const stream = await client.responses.create({ model: "gpt-4o-mini", input: "hi", store: false, stream: true });
    let streamedId = "";
    for await (const e of stream) if (e.type === "response.completed") streamedId = e.response.id;
    expect(streamedId).toStartWith("resp_");
    for (const id of [whole.id, streamedId]) {
      expect(await stored(id)).toBeUndefined();
      expect(await client.responses.retrieve(id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect(JSON.parse(w.openai.requests.at(-1)!.bodyText).store).toBe(false);
    const err = await client.responses.create({ model: "claude-haiku-4-5", input: "again", previous_response_id: whole.id }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  });

  test("unknown ids: GET and DELETE are 404, previous_response_id is OpenAI's 400, all in OpenAI's shape", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${w.url}/v1/responses/resp_nope`, { method });
      expect(res.status).toBe(404);
      expect(await errorOf(res)).toMatchObject({ message: "Response with id 'resp_nope' not found.", type: "invalid_request_error", param: null });
    }
    const calls = w.anthropic.requests.length;
    const res = await post(w.url, "/v1/responses", { model: "claude-haiku-4-5", input: "hi", previous_response_id: "resp_nope" });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({
      message: "Previous response with id 'resp_nope' not found.",
      type: "invalid_request_error",
      param: "previous_response_id",
      code: "previous_response_not_found",
    });
    expect(w.anthropic.requests.length).toBe(calls);
  });
});

describe("retention and the documented shapes", () => {
  test("stored responses are pruned with the runs (telemetry.retentionDays)", async () => {
    const days = w.relay.relay.config().telemetry.retentionDays;
    const fresh = await client.responses.create({ model: "claude-haiku-4-5", input: "hi" });
    const old = { ...(await stored(fresh.id))!, id: "resp_old", ts: Date.now() - (days + 1) * 86_400_000 };
    await w.relay.relay.store.responses.put(old);
    await w.relay.relay.prune();
    expect(await stored("resp_old")).toBeUndefined();
    expect(await stored(fresh.id)).toBeDefined();
  });

  test("answers match the OpenAPI schemas", async () => {
    const created = await post(w.url, "/v1/responses", { model: "claude-haiku-4-5", input: "hi" });
    const body = (await created.json()) as { id: string };
    expect(Value.Check(ResponseObject, body)).toBe(true);
    expect(Value.Check(ResponseObject, await (await fetch(`${w.url}/v1/responses/${body.id}`)).json())).toBe(true);
    expect(Value.Check(ResponseDeleted, await (await fetch(`${w.url}/v1/responses/${body.id}`, { method: "DELETE" })).json())).toBe(true);
    expect(Value.Check(OpenAIError, await (await fetch(`${w.url}/v1/responses/${body.id}`)).json())).toBe(true);
  });
});

describe("bad input", () => {
  test.each([
    ["input of the wrong type", { model: "claude-haiku-4-5", input: 42 }, "input"],
    ["no model", { input: "hi" }, "model"],
    ["a previous_response_id that is not an id", { model: "claude-haiku-4-5", input: "hi", previous_response_id: 7 }, "previous_response_id"],
  ])("%s is a 400 in OpenAI's shape, before any vendor call", async (_, body, param) => {
    const res = await post(w.url, "/v1/responses", body);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ type: "invalid_request_error", param });
    expect(w.anthropic.requests.length + w.openai.requests.length).toBe(0);
  });

  test("a body that is not JSON is a 400 in OpenAI's shape", async () => {
    const res = await post(w.url, "/v1/responses", '{"model":');
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ type: "invalid_request_error" });
  });
});
