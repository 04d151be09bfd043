/**
 * Google's own Gen AI SDK (@google/genai, pinned) pointed at Relay (httpOptions.baseUrl):
 * generateContent, generateContentStream, countTokens and function calls, passed through to the
 * Google fake byte for byte, and translated to the Anthropic and OpenAI fakes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ApiError, FinishReason, FunctionCallingConfigMode, GoogleGenAI, type GenerateContentResponse } from "@google/genai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { recordingsDir } from "../fakes/fixtures.ts";
import { parseSse } from "../fakes/wire.ts";
import { KEYS, MODELS, chatCalls, resetFakes, startWorld, type World } from "./harness.ts";

/** The key the SDK sends to Relay: meant for Google, so it may reach the Google fake and nothing else. */
const CLIENT_KEY = "AIza-client-genai-73c1";

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: { cooldown: { failures: 1000 } } });
});
afterAll(() => world.stop());
beforeEach(() => resetFakes(world));

const genai = () => new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: world.relay.url } });
const header = (r: GenerateContentResponse | { sdkHttpResponse?: { headers?: Record<string, string> } }, name: string) => r.sdkHttpResponse?.headers?.[name];
const recording = (file: string) => readFileSync(join(recordingsDir(), file), "utf8");

const WEATHER_TOOL = {
  functionDeclarations: [
    { name: "weather", description: "Current weather of a city", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  ],
};

describe("passthrough to Google", () => {
  test("generateContent: the client's bytes reach Google, Google's bytes reach the client, with the client's own key", async () => {
    world.fakes.gemini.enqueue(world.fakes.gemini.replayFixture("google/google-text.json"));
    const res = await genai().models.generateContent({ model: MODELS.gemini, contents: "How many r's in strawberry?" });
    expect(res.text).toContain("strawberry");
    expect(header(res, "x-svc-provider")).toBe("google");
    const [call] = chatCalls(world.fakes.gemini);
    expect(call!.path).toBe(`/v1beta/models/${MODELS.gemini}:generateContent`);
    expect(call!.headers["x-goog-api-key"]).toBe(CLIENT_KEY);

    // Byte for byte, both ways (odd spacing no serializer writes).
    const raw = `{ "contents":[ {"role":"user","parts":[{"text":"a\\/b"}]} ] ,\n "generationConfig": {"temperature": 0.5}}`;
    world.fakes.gemini.enqueue(world.fakes.gemini.replayFixture("google/google-tool-call.json"));
    const direct = await fetch(`${world.relay.url}/v1beta/models/${MODELS.gemini}:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": CLIENT_KEY },
      body: raw,
    });
    expect(direct.status).toBe(200);
    expect(await direct.text()).toBe(recording("google/google-tool-call.json"));
    expect(chatCalls(world.fakes.gemini)[1]!.bodyText).toBe(raw);
  });

  test("generateContentStream: SSE chunks as Google sent them", async () => {
    const fixture = world.fakes.gemini.replayFixture("google/google-text.chunks.txt");
    world.fakes.gemini.enqueue(fixture);
    const texts: string[] = [];
    for await (const chunk of await genai().models.generateContentStream({ model: MODELS.gemini, contents: "strawberry?" })) texts.push(chunk.text ?? "");
    const expected = recording("google/google-text.chunks.txt")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l).candidates?.[0]?.content?.parts?.map((p: any) => (p.thought ? "" : (p.text ?? ""))).join("") ?? "");
    expect(texts.join("")).toBe(expected.join(""));
    expect(chatCalls(world.fakes.gemini)[0]!.search).toBe("?alt=sse");

    world.fakes.gemini.enqueue(fixture, fixture);
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "strawberry?" }] }] });
    const path = `/v1beta/models/${MODELS.gemini}:streamGenerateContent?alt=sse`;
    const init = { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": CLIENT_KEY }, body };
    const vendorBytes = await (await fetch(`${world.fakes.gemini.url}${path}`, init)).text();
    const res = await fetch(`${world.relay.url}${path}`, init);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await res.text()).toBe(vendorBytes);
  });

  test("countTokens: Google's own count, with the client's key", async () => {
    const res = await genai().models.countTokens({ model: MODELS.gemini, contents: "twelve characters long, then some more" });
    expect(res.totalTokens).toBe(Math.ceil("twelve characters long, then some more".length / 4));
    expect(header(res, "x-svc-token-count")).toBe("vendor");
    const count = world.fakes.gemini.requests.find((r) => r.path.endsWith(":countTokens"))!;
    expect(count.headers["x-goog-api-key"]).toBe(CLIENT_KEY);
  });

  test("function calls: the declared tool is called, and its response goes back as the SDK wrote it", async () => {
    world.fakes.gemini.enqueue({ toolCalls: [{ name: "weather", args: { city: "Paris" } }] });
    const ai = genai();
    const config = { tools: [WEATHER_TOOL], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } };
    const first = await ai.models.generateContent({ model: MODELS.gemini, contents: "Weather in Paris?", config });
    expect(first.functionCalls).toEqual([expect.objectContaining({ name: "weather", args: { city: "Paris" } })]);
    const sent = chatCalls(world.fakes.gemini)[0]!.json;
    expect(sent.tools[0].functionDeclarations[0].name).toBe("weather");
    expect(sent.toolConfig.functionCallingConfig.mode).toBe("ANY");

    const second = await ai.models.generateContent({
      model: MODELS.gemini,
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        first.candidates![0]!.content!,
        { role: "user", parts: [{ functionResponse: { name: "weather", response: { temperature: 21 } } }] },
      ],
      config: { tools: [WEATHER_TOOL] },
    });
    expect(second.text).toBe("Hello from fake gemini");
    expect(chatCalls(world.fakes.gemini)[1]!.json.contents[2].parts[0].functionResponse).toEqual({ name: "weather", response: { temperature: 21 } });
  });
});

describe.each([
  ["anthropic", MODELS.anthropic, KEYS.anthropic],
  ["openai", MODELS.openai, KEYS.openai],
] as const)("translated to %s", (kind, model, relayKey) => {
  const fake = () => world.fakes[kind];
  const vendorKey = (r: { headers: Record<string, string> }) => (kind === "anthropic" ? r.headers["x-api-key"] : r.headers.authorization);

  test("generateContent: text, system instruction and usage; Relay's key for the vendor, never the client's Google key", async () => {
    fake().enqueue({ text: "Bonjour", usage: { input: 11, output: 3 } });
    const res = await genai().models.generateContent({ model, contents: "Say hello in French", config: { systemInstruction: "Be brief.", maxOutputTokens: 40 } });
    expect(res.text).toBe("Bonjour");
    expect(res.candidates![0]!.finishReason).toBe(FinishReason.STOP);
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 3, totalTokenCount: 14 });
    expect(header(res, "x-svc-provider")).toBe(kind);
    const [call] = chatCalls(fake());
    expect(vendorKey(call!)).toContain(relayKey);
    expect(JSON.stringify(call)).not.toContain(CLIENT_KEY);
    const body = call!.json;
    if (kind === "anthropic") {
      expect(JSON.stringify(body.system)).toContain("Be brief.");
      expect(body.max_tokens).toBe(40);
    } else {
      expect(body.messages[0]).toMatchObject({ role: "system" });
      expect(body.max_completion_tokens ?? body.max_tokens).toBe(40);
    }
  });

  test("generateContentStream: the text in order, finishReason and usage on the last chunk", async () => {
    fake().enqueue({ text: "one two three four", textChunks: 4, usage: { input: 5, output: 4 } });
    const chunks: GenerateContentResponse[] = [];
    for await (const c of await genai().models.generateContentStream({ model, contents: "count" })) chunks.push(c);
    expect(chunks.map((c) => c.text ?? "").join("")).toBe("one two three four");
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBe(FinishReason.STOP);
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 4 });
  });

  test("function calls, whole and streamed, and the function's response sent back as a tool result", async () => {
    const ai = genai();
    fake().enqueue({ toolCalls: [{ name: "weather", args: { city: "Paris" } }] });
    const first = await ai.models.generateContent({ model, contents: "Weather in Paris?", config: { tools: [WEATHER_TOOL] } });
    expect(first.functionCalls?.map((f) => [f.name, f.args])).toEqual([["weather", { city: "Paris" }]]);

    fake().enqueue({ toolCalls: [{ name: "weather", args: { city: "Oslo" } }] });
    const streamed: Array<[string | undefined, unknown]> = [];
    for await (const c of await ai.models.generateContentStream({ model, contents: "Weather in Oslo?", config: { tools: [WEATHER_TOOL] } })) {
      for (const f of c.functionCalls ?? []) streamed.push([f.name, f.args]);
    }
    expect(streamed).toEqual([["weather", { city: "Oslo" }]]);

    await ai.models.generateContent({
      model,
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        first.candidates![0]!.content!,
        { role: "user", parts: [{ functionResponse: { name: "weather", response: { temperature: 21 } } }] },
      ],
      config: { tools: [WEATHER_TOOL] },
    });
    const body = chatCalls(fake())[2]!.json;
    if (kind === "anthropic") {
      const use = body.messages[1].content.find((b: any) => b.type === "tool_use");
      const result = body.messages[2].content.find((b: any) => b.type === "tool_result");
      expect(use).toMatchObject({ name: "weather", input: { city: "Paris" } });
      expect(result.tool_use_id).toBe(use.id);
      expect(JSON.stringify(result.content)).toContain("21");
    } else {
      const call = body.messages[1].tool_calls[0];
      expect(call.function).toMatchObject({ name: "weather" });
      expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
      expect(body.messages[2]).toMatchObject({ role: "tool", tool_call_id: call.id });
      expect(body.messages[2].content).toContain("21");
    }
  });

  test("countTokens: Relay's estimate (the vendor does not count Gemini bodies)", async () => {
    const res = await genai().models.countTokens({ model, contents: "How many tokens is this sentence?" });
    expect(res.totalTokens).toBeGreaterThan(0);
    expect(header(res, "x-svc-token-count")).toBe("estimate");
    expect(fake().requests).toHaveLength(0);
  });

  test("a vendor error reaches the SDK as an ApiError in Google's shape", async () => {
    fake().enqueue({ status: 429, errorMessage: "slow down", headers: { "retry-after": "30" } });
    const err = await genai()
      .models.generateContent({ model, contents: "hi" })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    const body = JSON.parse((err as ApiError).message);
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(body.error.message).toContain("slow down");
  });
});

test("an unknown model is the SDK's ApiError 400 with suggestions", async () => {
  const err = await genai()
    .models.generateContent({ model: "clade-haiku-4-5", contents: "hi" })
    .then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(400);
  const body = JSON.parse((err as ApiError).message);
  expect(body.error).toMatchObject({ code: 400, message: "Model not found", status: "INVALID_ARGUMENT" });
  expect(body.suggestions).toContain(MODELS.anthropic);
});

test("svc:auto through the Gemini route is routed like any chat call", async () => {
  const res = await genai().models.generateContent({ model: "svc:auto", contents: "hi" });
  expect(res.text).toMatch(/^Hello from fake /);
  expect(header(res, "x-svc-requested-model")).toBe("svc:auto");
  // The SSE framing is Google's whichever vendor answered.
  const raw = await fetch(`${world.relay.url}/v1beta/models/svc:auto:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  });
  const events = parseSse(await raw.text()).map((e) => JSON.parse(e.data));
  expect(events.at(-1).candidates[0].finishReason).toBe("STOP");
});
