import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ChatRequest, ContentBlock, Message, TextBlock } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";

const PNG = "iVBORw0KGgo=";

const fullRequest = {
  model: "gpt-4o",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "developer", content: [{ type: "text", text: "Use metric units." }] },
    {
      role: "user",
      content: [
        { type: "text", text: "Compare these." },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
        { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      ],
    },
    {
      role: "assistant",
      content: "Looking up both.",
      reasoning_content: "Need weather for two cities.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "4°C" },
    { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "19°C" }] },
    { role: "user", content: "Thanks" },
  ],
  max_tokens: 100,
  max_completion_tokens: 200,
  stop: "END",
  temperature: 0.3,
  top_p: 0.9,
  tools: [
    {
      type: "function",
      function: { name: "weather", description: "Current weather", parameters: { type: "object" }, strict: true },
    },
  ],
  tool_choice: { type: "function", function: { name: "weather" } },
  parallel_tool_calls: false,
  response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
  reasoning_effort: "low",
  stream: true,
  stream_options: { include_usage: true },
  user: "user-42",
  seed: 7,
  logit_bias: { "50256": -100 },
  metadata: { team: "search" },
};

describe("request decoding", () => {
  test("an unmapped __proto__ member (JSON.parse makes it an own key) stays data in extra", () => {
    const req = openaiCodec.decodeRequest(JSON.parse('{"model":"m","messages":[],"__proto__":{"polluted":1},"seed":7}'));
    expect(Object.getPrototypeOf(req.extra)).toBe(Object.prototype);
    expect(Object.keys(req.extra!)).toEqual(["__proto__", "seed"]);
    expect((req.extra as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("a full request maps every field onto the IR", () => {
    const req = openaiCodec.decodeRequest(fullRequest);
    expect(req).toEqual({
      model: "gpt-4o",
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use metric units." },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare these." },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
            { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
            {
              type: "opaque",
              format: "openai",
              value: { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "Need weather for two cities." },
            { type: "text", text: "Looking up both." },
            { type: "tool_use", id: "call_1", name: "weather", input: { city: "Oslo" } },
            { type: "tool_use", id: "call_2", name: "weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "4°C" }] },
            { type: "tool_result", toolUseId: "call_2", content: [{ type: "text", text: "19°C" }] },
          ],
        },
        { role: "user", content: [{ type: "text", text: "Thanks" }] },
      ],
      stream: true,
      maxTokens: 200, // max_completion_tokens wins over the deprecated max_tokens
      temperature: 0.3,
      topP: 0.9,
      stop: ["END"],
      tools: [{ name: "weather", description: "Current weather", parameters: { type: "object" }, strict: true }],
      toolChoice: { type: "tool", name: "weather" },
      parallelToolCalls: false,
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
      reasoning: { effort: "low" },
      includeUsage: true,
      user: "user-42",
      extra: { seed: 7, logit_bias: { "50256": -100 }, metadata: { team: "search" } },
    });
  });

  test("reasoning_effort none disables reasoning; unknown efforts stay in extra for OpenAI vendors", () => {
    const base = { model: "m", messages: [] };
    expect(openaiCodec.decodeRequest({ ...base, reasoning_effort: "none" }).reasoning).toEqual({ disabled: true });
    const future = openaiCodec.decodeRequest({ ...base, reasoning_effort: "xhigh" });
    expect(future.reasoning).toBeUndefined();
    expect(future.extra).toEqual({ reasoning_effort: "xhigh" });
  });

  test("empty tool arguments decode to an empty object", () => {
    const req = openaiCodec.decodeRequest({
      model: "m",
      messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "now", arguments: "" } }] }],
    });
    expect(req.messages[0].content).toEqual([{ type: "tool_use", id: "c", name: "now", input: {} }]);
  });

  const malformed: Array<[string, (b: Record<string, unknown>) => unknown, string, string]> = [
    ["body that is not an object", () => [], "body", "object"],
    ["missing model", ({ model: _, ...rest }) => rest, "model", "string"],
    ["messages not an array", (b) => ({ ...b, messages: "hi" }), "messages", "array"],
    ["a message that is not an object", (b) => ({ ...b, messages: ["hi"] }), "messages[0]", "object"],
    ["an unknown role", (b) => ({ ...b, messages: [{ role: "robot", content: "x" }] }), "messages[0].role", '"system"'],
    ["user content of the wrong type", (b) => ({ ...b, messages: [{ role: "user", content: 42 }] }), "messages[0].content", "string or array"],
    [
      "a content part that is not an object",
      (b) => ({ ...b, messages: [{ role: "user", content: ["text"] }] }),
      "messages[0].content[0]",
      "object",
    ],
    [
      "an image part without a url",
      (b) => ({ ...b, messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] }),
      "messages[0].content[0].image_url.url",
      "string",
    ],
    [
      "unparsable tool arguments",
      (b) => ({
        ...b,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] },
        ],
      }),
      "messages[1].tool_calls[0].function.arguments",
      "JSON",
    ],
    ["a tool message without tool_call_id", (b) => ({ ...b, messages: [{ role: "tool", content: "x" }] }), "messages[0].tool_call_id", "string"],
    ["a tool that is not a function", (b) => ({ ...b, tools: [{ type: "custom", custom: { name: "x" } }] }), "tools[0].type", '"function"'],
    ["an unknown tool_choice", (b) => ({ ...b, tool_choice: "sometimes" }), "tool_choice", '"auto"'],
    ["an unknown response_format", (b) => ({ ...b, response_format: { type: "yaml" } }), "response_format.type", '"json_schema"'],
    ["stop of the wrong type", (b) => ({ ...b, stop: [1] }), "stop[0]", "string"],
    ["temperature as a string", (b) => ({ ...b, temperature: "hot" }), "temperature", "number"],
  ];

  for (const [what, mutate, parameter, expected] of malformed) {
    test(`${what} is a CodecError naming ${parameter}`, () => {
      let caught: unknown;
      try {
        openaiCodec.decodeRequest(mutate({ model: "m", messages: [{ role: "user", content: "hi" }] }));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CodecError);
      expect((caught as CodecError).parameter).toBe(parameter);
      expect((caught as CodecError).expected).toContain(expected);
    });
  }
});

describe("request encoding", () => {
  const base: ChatRequest = { model: "client-model", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false };

  test("extra is forwarded and the vendor model id is used", () => {
    const { body, dropped } = openaiCodec.encodeRequest({ ...base, extra: { seed: 7, n: 2 } }, { model: "gpt-4o-2024-08-06" });
    expect(body).toMatchObject({ model: "gpt-4o-2024-08-06", seed: 7, n: 2, messages: [{ role: "user", content: "hi" }] });
    expect(dropped).toEqual([]);
  });

  test("openai opaque parts are re-emitted, other formats' opaque blocks are dropped and listed", () => {
    const audio = { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } };
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "listen" },
          { type: "opaque", format: "openai", value: audio },
          { type: "opaque", format: "anthropic", value: { type: "document" } },
        ],
      },
    ];
    const { body, dropped } = openaiCodec.encodeRequest({ ...base, messages }, { model: "m" });
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "listen" }, audio] }]);
    expect(dropped).toEqual(["messages[0].content[2] (anthropic block)"]);
  });

  test("thinking in assistant history is not sent, top_k is dropped", () => {
    const messages: Message[] = [
      ...base.messages,
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "hmm", signature: "sig" },
          { type: "redacted_thinking", data: "xyz" },
          { type: "text", text: "Hello" },
        ],
      },
    ];
    const { body, dropped } = openaiCodec.encodeRequest({ ...base, messages, topK: 40 }, { model: "m" });
    expect((body.messages as unknown[])[1]).toEqual({ role: "assistant", content: "Hello" });
    expect(dropped).toEqual(["top_k"]);
  });

  test("tool results become tool messages before the user's text; their images move into the user message", () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "toolu_1",
            content: [
              { type: "text", text: "chart attached" },
              { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
            ],
          },
          { type: "text", text: "What does it show?" },
        ],
      },
    ];
    const { body } = openaiCodec.encodeRequest({ ...base, messages }, { model: "m" });
    expect(body.messages).toEqual([
      { role: "tool", tool_call_id: "toolu_1", content: "chart attached" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "text", text: "What does it show?" },
        ],
      },
    ]);
  });

  test("token budgets map to reasoning_effort at 1024 and 8192; an explicit effort or disabling wins", () => {
    const effort = (reasoning: ChatRequest["reasoning"]) =>
      openaiCodec.encodeRequest({ ...base, reasoning }, { model: "m" }).body.reasoning_effort;
    expect(effort({ budgetTokens: 1024 })).toBe("low");
    expect(effort({ budgetTokens: 1025 })).toBe("medium");
    expect(effort({ budgetTokens: 8192 })).toBe("medium");
    expect(effort({ budgetTokens: 8193 })).toBe("high");
    expect(effort({ budgetTokens: 32000, effort: "minimal" })).toBe("minimal");
    expect(effort({ disabled: true, budgetTokens: 2000 })).toBeUndefined();
  });

  test("streaming requests always ask the vendor for usage", () => {
    const { body } = openaiCodec.encodeRequest({ ...base, stream: true }, { model: "m" });
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  test("a json_schema format without a name gets the name OpenAI requires", () => {
    const { body } = openaiCodec.encodeRequest(
      { ...base, responseFormat: { type: "json_schema", schema: { type: "object" } } },
      { model: "m" },
    );
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema: { type: "object" } } });
  });
});

// ---- decode(encode(ir)) round trip over the IR subset chat completions can carry exactly ----

const text = fc.string({ maxLength: 20 });
const nonEmptyText = fc.string({ minLength: 1, maxLength: 20 });
const textBlock = text.map((t): TextBlock => ({ type: "text", text: t }));
const imageBlock = fc.oneof(
  fc.record({ mediaType: fc.constantFrom("image/png", "image/jpeg", "image/webp"), data: fc.base64String({ maxLength: 24 }) }).map(
    ({ mediaType, data }): ContentBlock => ({ type: "image", source: { kind: "base64", mediaType, data } }),
  ),
  fc.webUrl().map((url): ContentBlock => ({ type: "image", source: { kind: "url", url } })),
);
const audioPart = fc.base64String({ maxLength: 16 }).map(
  (data): ContentBlock => ({ type: "opaque", format: "openai", value: { type: "input_audio", input_audio: { data, format: "mp3" } } }),
);
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })).map((o) => JSON.parse(JSON.stringify(o)));
const id = fc.stringMatching(/^call_[A-Za-z0-9]{1,8}$/);

const userTurn = fc.array(fc.oneof(textBlock, imageBlock, audioPart), { minLength: 1, maxLength: 4 });
const toolResultTurn = fc.array(
  fc.record({ toolUseId: id, content: fc.array(textBlock, { minLength: 1, maxLength: 3 }) }).map(
    ({ toolUseId, content }): ContentBlock => ({ type: "tool_result", toolUseId, content }),
  ),
  { minLength: 1, maxLength: 3 },
);
const assistantTurn = fc
  .record({
    texts: fc.array(nonEmptyText, { maxLength: 2 }),
    calls: fc.array(fc.record({ id, name: fc.stringMatching(/^[a-z_]{1,12}$/), input: jsonObject }), { maxLength: 3 }),
  })
  .map(({ texts, calls }): ContentBlock[] => [
    ...texts.map((t): ContentBlock => ({ type: "text", text: t })),
    ...calls.map((c): ContentBlock => ({ type: "tool_use", ...c })),
  ]);

/** Alternating user/assistant turns, so two tool-result turns are never adjacent (they would merge). */
const conversation = fc
  .array(fc.tuple(fc.oneof(userTurn, toolResultTurn), assistantTurn), { maxLength: 3 })
  .map((pairs): Message[] => pairs.flatMap(([u, a]) => [{ role: "user", content: u }, { role: "assistant", content: a }]));

const irRequest: fc.Arbitrary<ChatRequest> = fc.record(
  {
    model: fc.constant("gpt-4o"),
    system: fc.array(textBlock, { minLength: 1, maxLength: 2 }),
    messages: conversation,
    stream: fc.boolean(),
    maxTokens: fc.integer({ min: 1, max: 100000 }),
    temperature: fc.integer({ min: 0, max: 200 }).map((n) => n / 100),
    topP: fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
    stop: fc.array(nonEmptyText, { minLength: 1, maxLength: 3 }),
    tools: fc.array(
      fc.record(
        { name: fc.stringMatching(/^[a-z_]{1,12}$/), description: text, parameters: jsonObject, strict: fc.boolean() },
        { requiredKeys: ["name", "parameters"] },
      ),
      { maxLength: 2 },
    ),
    toolChoice: fc.oneof(
      fc.constantFrom({ type: "auto" as const }, { type: "none" as const }, { type: "required" as const }),
      fc.stringMatching(/^[a-z_]{1,12}$/).map((name) => ({ type: "tool" as const, name })),
    ),
    parallelToolCalls: fc.boolean(),
    responseFormat: fc.oneof(
      fc.constantFrom({ type: "text" as const }, { type: "json" as const }),
      fc
        .record({ name: fc.stringMatching(/^[a-z_]{1,12}$/), schema: jsonObject, strict: fc.boolean() })
        .map((f) => ({ type: "json_schema" as const, ...f })),
    ),
    reasoning: fc.constantFrom("minimal", "low", "medium", "high").map((effort) => ({ effort: effort as "low" })),
    user: text,
    extra: fc.dictionary(fc.constantFrom("seed", "n", "metadata", "store", "frequency_penalty"), fc.jsonValue({ maxDepth: 2 }), {
      minKeys: 1,
    }),
  },
  { requiredKeys: ["model", "messages", "stream"] },
);

describe("request round trip", () => {
  test("decode(encode(request)) preserves messages, tools, tool results, images and response_format", () => {
    fc.assert(
      fc.property(irRequest, (req) => {
        const { body, dropped } = openaiCodec.encodeRequest(req, { model: req.model });
        expect(dropped).toEqual([]);
        // Through real JSON, as on the wire.
        const back = openaiCodec.decodeRequest(JSON.parse(JSON.stringify(body)));
        // Streaming requests always ask the vendor for usage.
        const expected: ChatRequest = req.stream ? { ...req, includeUsage: true } : req;
        expect(back).toEqual(JSON.parse(JSON.stringify(expected)));
      }),
      { numRuns: 300 },
    );
  });

  test("encode(decode(body)) reproduces the client's body for the fields the IR carries", () => {
    const { body } = openaiCodec.encodeRequest(openaiCodec.decodeRequest(fullRequest), { model: "gpt-4o" });
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Use metric units." },
      {
        role: "user",
        content: [
          { type: "text", text: "Compare these." },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
        ],
      },
      {
        role: "assistant",
        content: "Looking up both.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
          { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "4°C" },
      { role: "tool", tool_call_id: "call_2", content: "19°C" },
      { role: "user", content: "Thanks" },
    ]);
    expect(body).toMatchObject({
      max_completion_tokens: 200,
      stop: ["END"],
      tool_choice: { type: "function", function: { name: "weather" } },
      parallel_tool_calls: false,
      response_format: fullRequest.response_format,
      reasoning_effort: "low",
      user: "user-42",
      seed: 7,
      logit_bias: { "50256": -100 },
      metadata: { team: "search" },
    });
  });
});
