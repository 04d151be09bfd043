import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { geminiCodec } from "../../src/core/formats/gemini/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";
import type { ChatRequest } from "../../src/core/ir.ts";

const encode = (req: ChatRequest) => geminiCodec.encodeRequest(req, { model: "gemini-2.5-flash" });

/** A body using every field the codec models, in the canonical shapes the encoder writes. */
const fullBody = {
  systemInstruction: { parts: [{ text: "Be brief." }] },
  contents: [
    {
      role: "user",
      parts: [
        { text: "Weather in Paris and Rome? See:" },
        { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
        { fileData: { mimeType: "image/jpeg", fileUri: "gs://bucket/map.jpg" } },
      ],
    },
    {
      role: "model",
      parts: [
        { text: "Let me think.", thought: true, thoughtSignature: "sig-thought" },
        { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "sig-call" },
        { functionCall: { name: "weather", args: { city: "Rome" } } },
      ],
    },
    {
      role: "user",
      parts: [
        { functionResponse: { name: "weather", response: { result: "sunny" } } },
        { functionResponse: { name: "weather", response: { error: "station offline" } } },
      ],
    },
  ],
  generationConfig: {
    maxOutputTokens: 256,
    temperature: 0.3,
    topP: 0.9,
    topK: 40,
    stopSequences: ["END"],
    responseMimeType: "application/json",
    responseSchema: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    candidateCount: 1,
    seed: 7,
  },
  tools: [
    {
      functionDeclarations: [
        {
          name: "weather",
          description: "Current weather",
          parameters: { type: "object", properties: { city: { type: "string", nullable: true } }, required: ["city"] },
        },
        { name: "now" },
      ],
    },
    { googleSearch: {} },
  ],
  toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] } },
  safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
  cachedContent: "cachedContents/abc",
};

describe("gemini decodeRequest", () => {
  const req = geminiCodec.decodeRequest(fullBody);

  test("model comes from the URL, so the decoded model is empty and stream false", () => {
    expect(req.model).toBe("");
    expect(req.stream).toBe(false);
  });

  test("system, sampling, stop, response schema and thinking budget map to IR fields", () => {
    expect(req.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(req).toMatchObject({ maxTokens: 256, temperature: 0.3, topP: 0.9, topK: 40, stop: ["END"] });
    expect(req.responseFormat).toEqual({
      type: "json_schema",
      schema: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    });
    expect(req.reasoning).toEqual({ budgetTokens: 2048 });
  });

  test("images: inlineData is base64, fileData a URL", () => {
    expect(req.messages[0].content.slice(1)).toEqual([
      { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { kind: "url", url: "gs://bucket/map.jpg" } },
    ]);
  });

  test("id-less function calls get stable call_<n> ids and each response pairs with its call in order", () => {
    const calls = req.messages[1].content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => c.id)).toEqual(["call_0", "call_1"]);
    expect(req.messages[2].content).toEqual([
      { type: "tool_result", toolUseId: "call_0", name: "weather", content: [{ type: "text", text: "sunny" }] },
      { type: "tool_result", toolUseId: "call_1", name: "weather", content: [{ type: "text", text: "station offline" }], isError: true },
    ]);
    expect(geminiCodec.decodeRequest(fullBody)).toEqual(req); // stable across decodes
  });

  test("thought parts and signatures become thinking blocks", () => {
    expect(req.messages[1].content.slice(0, 2)).toEqual([
      { type: "thinking", text: "Let me think.", signature: "sig-thought" },
      { type: "thinking", text: "", signature: "sig-call" },
    ]);
  });

  test("tools: OpenAPI schema converted to JSON Schema; a declaration without parameters gets an empty object", () => {
    expect(req.tools).toEqual([
      {
        name: "weather",
        description: "Current weather",
        parameters: { type: "object", properties: { city: { type: ["string", "null"] } }, required: ["city"] },
      },
      { name: "now", parameters: { type: "object", properties: {} } },
    ]);
    expect(req.toolChoice).toEqual({ type: "tool", name: "weather" });
  });

  test("unknown keys (safetySettings, cachedContent, non-function tools, other generationConfig) go to extra", () => {
    expect(req.extra).toEqual({
      safetySettings: fullBody.safetySettings,
      cachedContent: "cachedContents/abc",
      generationConfig: { candidateCount: 1, seed: 7 },
      tools: [{ googleSearch: {} }],
    });
  });

  test("an unknown __proto__ member (JSON.parse makes it an own key) stays data in extra", () => {
    const body = JSON.parse('{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"__proto__":{"polluted":1},"cachedContent":"c"}');
    const extra = geminiCodec.decodeRequest(body).extra!;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.keys(extra)).toEqual(["__proto__", "cachedContent"]);
    expect((extra as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("functionCallingConfig modes, thinkingLevel and parametersJsonSchema", () => {
    const base = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
    const mode = (m: object) => geminiCodec.decodeRequest({ ...base, toolConfig: { functionCallingConfig: m } }).toolChoice;
    expect(mode({ mode: "AUTO" })).toEqual({ type: "auto" });
    expect(mode({ mode: "NONE" })).toEqual({ type: "none" });
    expect(mode({ mode: "ANY" })).toEqual({ type: "required" });
    expect(mode({ mode: "ANY", allowedFunctionNames: ["a", "b"] })).toEqual({ type: "required" });
    const think = (t: object) => geminiCodec.decodeRequest({ ...base, generationConfig: { thinkingConfig: t } }).reasoning;
    expect(think({ thinkingLevel: "HIGH" })).toEqual({ effort: "high" });
    expect(think({ thinkingBudget: 0 })).toEqual({ disabled: true });
    expect(think({ thinkingBudget: -1, includeThoughts: true })).toEqual({});
    const schema = { type: "object", properties: { q: { type: "string" } }, additionalProperties: false };
    const tools = geminiCodec.decodeRequest({ ...base, tools: [{ functionDeclarations: [{ name: "s", parametersJsonSchema: schema }] }] }).tools;
    expect(tools?.[0].parameters).toEqual(schema);
    expect(geminiCodec.decodeRequest({ ...base, generationConfig: { responseMimeType: "application/json" } }).responseFormat).toEqual({ type: "json" });
  });

  test("contents that is not an array is a CodecError naming the parameter", () => {
    expect(() => geminiCodec.decodeRequest({ contents: "hi" })).toThrow(CodecError);
    try {
      geminiCodec.decodeRequest({ contents: [42] });
    } catch (e) {
      expect((e as CodecError).parameter).toBe("contents[0]");
    }
  });
});

describe("gemini encodeRequest", () => {
  test("decode -> encode reproduces the canonical body (signatures back on their parts, tools sanitised)", () => {
    const { body, dropped } = encode(geminiCodec.decodeRequest(fullBody));
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      ...fullBody,
      generationConfig: { ...fullBody.generationConfig },
      tools: [
        {
          functionDeclarations: [
            fullBody.tools[0].functionDeclarations?.[0],
            { name: "now" }, // no parameters: Gemini rejects an OBJECT without properties
          ],
        },
        { googleSearch: {} },
      ],
    });
  });

  test("tool results from other formats: name looked up from the earlier tool_use; text wrapped, JSON objects passed", () => {
    const { body } = encode({
      model: "x",
      stream: false,
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: 1 } },
            { type: "tool_use", id: "toolu_2", name: "fetch", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "toolu_1", content: [{ type: "text", text: '{"hits":3}' }] },
            { type: "tool_result", toolUseId: "toolu_2", content: [{ type: "text", text: "timeout" }], isError: true },
            { type: "image", source: { kind: "url", url: "https://x.test/a.png" } },
            { type: "image", source: { kind: "url", url: "data:image/gif;base64,R0lGOD=" } },
          ],
        },
      ],
    });
    expect((body.contents as unknown[])[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "lookup", response: { hits: 3 } } },
        { functionResponse: { name: "fetch", response: { error: "timeout" } } },
        { fileData: { mimeType: "image/png", fileUri: "https://x.test/a.png" } },
        { inlineData: { mimeType: "image/gif", data: "R0lGOD=" } },
      ],
    });
  });

  test("a tool result whose call cannot be found is a CodecError, not a nameless functionResponse", () => {
    const req: ChatRequest = {
      model: "x",
      stream: false,
      messages: [{ role: "user", content: [{ type: "tool_result", toolUseId: "ghost", content: [] }] }],
    };
    expect(() => encode(req)).toThrow(CodecError);
  });

  test("reasoning effort maps to budgets, disabled to 0; tool choice and dropped parameters", () => {
    const base: ChatRequest = { model: "x", stream: false, messages: [{ role: "user", content: [{ type: "text", text: "q" }] }] };
    const gen = (r: ChatRequest) => encode(r).body.generationConfig as Record<string, unknown>;
    expect(gen({ ...base, reasoning: { effort: "low" } }).thinkingConfig).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(gen({ ...base, reasoning: { effort: "medium" } }).thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(gen({ ...base, reasoning: { effort: "high" } }).thinkingConfig).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(gen({ ...base, reasoning: { disabled: true } }).thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect(encode({ ...base, toolChoice: { type: "required" } }).body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(encode({ ...base, parallelToolCalls: false, user: "u1" }).dropped).toEqual(["parallel_tool_calls", "user"]);
    expect(encode({ ...base, parallelToolCalls: true }).dropped).toEqual([]);
  });

  test("json_schema response formats are sanitised like tool schemas", () => {
    const { body } = encode({
      model: "x",
      stream: false,
      messages: [{ role: "user", content: [{ type: "text", text: "q" }] }],
      responseFormat: {
        type: "json_schema",
        name: "out",
        schema: { type: "object", additionalProperties: false, properties: { a: { type: ["integer", "null"] } }, required: ["a"] },
      },
    });
    expect(body.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { a: { type: "integer", nullable: true } }, required: ["a"] },
    });
  });

  test("property: encode -> decode keeps text conversations and sampling parameters", () => {
    const text = fc.string({ minLength: 1, maxLength: 20 });
    const request = fc.record(
      {
        system: fc.array(text.map((t) => ({ type: "text" as const, text: t })), { minLength: 1, maxLength: 2 }),
        messages: fc.array(
          fc.record({
            role: fc.constantFrom("user" as const, "assistant" as const),
            content: fc.array(text.map((t) => ({ type: "text" as const, text: t })), { minLength: 1, maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        maxTokens: fc.integer({ min: 1, max: 65536 }),
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        topP: fc.double({ min: 0, max: 1, noNaN: true }),
        topK: fc.integer({ min: 1, max: 100 }),
        stop: fc.array(text, { minLength: 1, maxLength: 3 }),
        reasoning: fc.oneof(fc.constant({ disabled: true }), fc.integer({ min: 1, max: 32768 }).map((b) => ({ budgetTokens: b }))),
      },
      { requiredKeys: ["messages"] },
    );
    fc.assert(
      fc.property(request, (r) => {
        const req: ChatRequest = { model: "", stream: false, ...r };
        expect(geminiCodec.decodeRequest(encode(req).body)).toEqual(req);
      }),
    );
  });
});
