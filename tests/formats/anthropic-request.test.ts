// Anthropic request decoding and encoding: field mapping, validation errors
// and a decode→encode round trip over generated requests.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";
import type { ChatRequest } from "../../src/core/ir.ts";

const { decodeRequest, encodeRequest } = anthropicCodec;
const encode = (req: ChatRequest, defaultMaxTokens?: number) =>
  encodeRequest(req, { model: "claude-vendor", defaultMaxTokens });
const base: ChatRequest = { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false };

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

describe("anthropic request decoding", () => {
  const wire = {
    model: "claude-sonnet-4-5",
    max_tokens: 4000,
    system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral", ttl: "1h" } }],
    messages: [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Need a tool.", signature: "sig1" },
          { type: "redacted_thinking", data: "xyz" },
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "paris" } },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18C", is_error: false },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "boom" }], is_error: true },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" }, cache_control: { type: "ephemeral" } },
          { type: "image", source: { type: "url", url: "https://x/y.png" } },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
        ],
      },
    ],
    tools: [
      { name: "weather", description: "Weather", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 3 },
    ],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
    thinking: { type: "enabled", budget_tokens: 2048 },
    output_config: { format: { type: "json_schema", schema: { type: "object" } }, effort: "low" },
    metadata: { user_id: "u-42" },
    stop_sequences: ["END"],
    temperature: 1,
    top_p: 0.99,
    stream: true,
    container: "container_1",
    service_tier: "auto",
  };
  const req = decodeRequest(wire);

  test("system blocks keep cache_control", () => {
    expect(req.system).toEqual([{ type: "text", text: "Be brief.", cacheControl: { type: "ephemeral", ttl: "1h" } }]);
  });

  test("every block type maps, unknown ones stay opaque", () => {
    expect(req.messages[0].content).toEqual([{ type: "text", text: "Weather?" }]);
    expect(req.messages[1].content).toEqual([
      { type: "thinking", text: "Need a tool.", signature: "sig1" },
      { type: "redacted_thinking", data: "xyz" },
      { type: "opaque", format: "anthropic", value: wire.messages[1].content[2] },
      { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
    ]);
    expect(req.messages[2].content).toEqual([
      { type: "tool_result", toolUseId: "toolu_1", content: [{ type: "text", text: "18C" }], isError: false },
      { type: "tool_result", toolUseId: "toolu_2", content: [{ type: "text", text: "boom" }], isError: true },
      { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" }, cacheControl: { type: "ephemeral" } },
      { type: "image", source: { kind: "url", url: "https://x/y.png" } },
      { type: "opaque", format: "anthropic", value: wire.messages[2].content[4] },
    ]);
  });

  test("parameters map to IR fields; server tools and unmapped keys go to extra", () => {
    expect(req).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      maxTokens: 4000,
      temperature: 1,
      topP: 0.99,
      stop: ["END"],
      tools: [{ name: "weather", description: "Weather", parameters: { type: "object" }, cacheControl: { type: "ephemeral" } }],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
      reasoning: { budgetTokens: 2048 },
      responseFormat: { type: "json_schema", schema: { type: "object" } },
      user: "u-42",
    });
    expect(req.extra).toEqual({
      container: "container_1",
      service_tier: "auto",
      tools: [wire.tools[1]],
      output_config: { effort: "low" },
    });
  });

  test("same-format re-encoding reproduces the request", () => {
    const { body, dropped } = encode(req);
    expect(dropped).toEqual([]);
    expect(body).toMatchObject({
      model: "claude-vendor",
      max_tokens: 4000,
      temperature: 1,
      top_p: 0.99,
      system: wire.system,
      tools: wire.tools,
      tool_choice: wire.tool_choice,
      thinking: wire.thinking,
      output_config: wire.output_config,
      metadata: wire.metadata,
      stop_sequences: ["END"],
      container: "container_1",
      service_tier: "auto",
      stream: true,
    });
    expect((body.messages as unknown[])[1]).toEqual(wire.messages[1]);
    expect(decodeRequest({ ...body, model: wire.model })).toEqual(req);
  });

  test("adaptive thinking and its effort are IR reasoning, re-encoded as Anthropic wrote them", () => {
    const adaptive = decodeRequest({ model: "m", max_tokens: 10, messages: [], thinking: { type: "adaptive" }, output_config: { effort: "medium" } });
    expect(adaptive.reasoning).toEqual({ adaptive: true, effort: "medium" });
    expect(adaptive.extra).toBeUndefined();
    const { body } = encode(adaptive);
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body.output_config).toEqual({ effort: "medium" });
    expect(body.max_tokens).toBe(10);
  });

  test("an unmapped __proto__ member (JSON.parse makes it an own key) stays data in extra; absent parameters are absent keys", () => {
    const req2 = decodeRequest(JSON.parse('{"model":"m","messages":[],"__proto__":{"polluted":1},"container":"c"}'));
    expect(Object.getPrototypeOf(req2.extra)).toBe(Object.prototype);
    expect(Object.keys(req2.extra!)).toEqual(["__proto__", "container"]);
    expect((req2.extra as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(req2)).toEqual(["model", "messages", "stream", "extra"]);
  });

  test("the beta output_format parameter is read as a json_schema response format", () => {
    const req2 = decodeRequest({ model: "m", messages: [], output_format: { type: "json_schema", schema: { type: "object", properties: {} } } });
    expect(req2.responseFormat).toEqual({ type: "json_schema", schema: { type: "object", properties: {} } });
    expect(req2.extra).toBeUndefined();
  });

  test("malformed shapes name the parameter path and the expected type", () => {
    const bad = codecError(() =>
      decodeRequest({ model: "m", messages: [{ role: "user", content: "a" }, { role: "assistant", content: [{ text: "x" }] }] }),
    );
    expect(bad.parameter).toBe("messages[1].content[0].type");
    expect(bad.expected).toBe("string");
    expect(codecError(() => decodeRequest({ model: "m", messages: [{ role: 7, content: "a" }] }))).toMatchObject({
      parameter: "messages[0].role",
      expected: "string",
    });
    expect(codecError(() => decodeRequest({ model: "m", messages: [], max_tokens: "9" }))).toMatchObject({ parameter: "max_tokens", expected: "number" });
    expect(codecError(() => decodeRequest({ messages: [] }))).toMatchObject({ parameter: "model", expected: "string" });
    expect(codecError(() => decodeRequest({ model: "m" }))).toMatchObject({ parameter: "messages", expected: "array" });
    expect(codecError(() => decodeRequest({ model: "m", messages: [], tools: [{ name: "t" }] }))).toMatchObject({
      parameter: "tools[0].input_schema",
      expected: "object",
    });
    expect(codecError(() => decodeRequest({ model: "m", messages: [], tool_choice: { type: 1 } }))).toMatchObject({
      parameter: "tool_choice.type",
    });
    expect(codecError(() => decodeRequest("nope"))).toMatchObject({ parameter: "body", expected: "object" });
  });
});

describe("anthropic request encoding from other formats", () => {
  test("max_tokens falls back to the provider default, then 4096", () => {
    expect(encode(base).body.max_tokens).toBe(4096);
    expect(encode(base, 2000).body.max_tokens).toBe(2000);
    expect(encode({ ...base, maxTokens: 77 }, 2000).body.max_tokens).toBe(77);
  });

  test("consecutive same-role messages merge and tool results lead the user turn", () => {
    const { body } = encode({
      ...base,
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "f", input: {} }, { type: "tool_use", id: "b", name: "f", input: {} }] },
        { role: "user", content: [{ type: "text", text: "note" }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "a", content: [{ type: "text", text: "1" }] }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "b", content: [] }] },
      ],
    });
    const messages = body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[2].content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
  });

  test("unsigned thinking and other formats' opaque blocks are dropped silently", () => {
    const { body, dropped } = encode({
      ...base,
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "deepseek reasoning" },
            { type: "opaque", format: "openai", value: { refusal: "no" } },
            { type: "text", text: "answer" },
          ],
        },
      ],
    });
    expect((body.messages as Array<{ content: unknown[] }>)[1].content).toEqual([{ type: "text", text: "answer" }]);
    expect(dropped).toEqual([]);
  });

  test("a single uncached system block is sent as a string", () => {
    expect(encode({ ...base, system: [{ type: "text", text: "sys" }] }).body.system).toBe("sys");
    expect(encode({ ...base, system: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }).body.system).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
  });

  test("response formats: json_schema uses output_config.format, schemaless json is dropped and reported", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(encode({ ...base, responseFormat: { type: "json_schema", name: "x", schema } }).body.output_config).toEqual({
      format: { type: "json_schema", schema },
    });
    const json = encode({ ...base, responseFormat: { type: "json" } });
    expect(json.dropped).toEqual(["response_format"]);
    expect(json.body.output_config).toBeUndefined();
  });

  test("tool choice and parallel tool calls", () => {
    const tools = [{ name: "f", parameters: { type: "object" } }];
    expect(encode({ ...base, tools, toolChoice: { type: "required" }, parallelToolCalls: false }).body.tool_choice).toEqual({
      type: "any",
      disable_parallel_tool_use: true,
    });
    expect(encode({ ...base, tools, parallelToolCalls: false }).body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(encode({ ...base, tools, toolChoice: { type: "tool", name: "f" } }).body.tool_choice).toEqual({ type: "tool", name: "f" });
    expect(encode({ ...base, tools, toolChoice: { type: "none" } }).body.tool_choice).toEqual({ type: "none" });
    expect(encode({ ...base, parallelToolCalls: false }).body.tool_choice).toBeUndefined();
  });

  test("reasoning effort becomes a thinking budget below max_tokens; minimal turns thinking off", () => {
    const high = encode({ ...base, maxTokens: 1000, reasoning: { effort: "high" } }).body;
    expect(high.thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
    expect(high.max_tokens).toBe(17384);
    expect(encode({ ...base, reasoning: { effort: "low" } }).body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(encode({ ...base, reasoning: { effort: "medium" } }).body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 4096 },
      max_tokens: 8192,
    });
    expect(encode({ ...base, reasoning: { effort: "minimal" } }).body.thinking).toEqual({ type: "disabled" });
    expect(encode({ ...base, reasoning: { budgetTokens: 100 } }).body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });

  test("sampling parameters Anthropic refuses while thinking are dropped and reported", () => {
    const { body, dropped } = encode({ ...base, temperature: 0.2, topK: 3, topP: 0.5, reasoning: { budgetTokens: 2000 } });
    expect(dropped).toEqual(["temperature", "top_p", "top_k"]);
    expect(body.temperature).toBeUndefined();
    expect(encode({ ...base, temperature: 0.2, topK: 3 }).body).toMatchObject({ temperature: 0.2, top_k: 3 });
  });

  test("stop, user and extra are forwarded", () => {
    const { body } = encode({ ...base, stop: ["x"], user: "u1", extra: { container: "c1", tools: [{ type: "bash_20250124", name: "bash" }] } });
    expect(body).toMatchObject({ stop_sequences: ["x"], metadata: { user_id: "u1" }, container: "c1", tools: [{ type: "bash_20250124", name: "bash" }] });
  });
});

// ---- round trip over generated requests ----

const cacheControl = fc.option(fc.constantFrom({ type: "ephemeral" }, { type: "ephemeral", ttl: "1h" }), { nil: undefined });
const cached = <T extends object>(block: T, cc: object | undefined) => (cc ? { ...block, cache_control: cc } : block);
const id = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const text = fc.tuple(fc.string(), cacheControl).map(([t, cc]) => cached({ type: "text", text: t }, cc));
const image = fc
  .tuple(
    fc.oneof(
      fc.record({ type: fc.constant("base64"), media_type: fc.constantFrom("image/png", "image/jpeg"), data: fc.base64String() }),
      fc.record({ type: fc.constant("url"), url: fc.webUrl() }),
    ),
    cacheControl,
  )
  .map(([source, cc]) => cached({ type: "image", source }, cc));
const document = fc.string().map((data) => ({ type: "document", source: { type: "text", media_type: "text/plain", data } }));
const toolResult = fc
  .record({ tool_use_id: id, content: fc.array(fc.oneof(text, image), { maxLength: 3 }), is_error: fc.option(fc.boolean(), { nil: undefined }), cc: cacheControl })
  .map(({ cc, is_error, ...r }) => cached({ type: "tool_result", ...r, ...(is_error === undefined ? {} : { is_error }) }, cc));
const toolUse = fc.record({ type: fc.constant("tool_use"), id, name: id, input: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }) });
const thinking = fc.record({ type: fc.constant("thinking"), thinking: fc.string(), signature: fc.string({ minLength: 1 }) });
const redacted = fc.record({ type: fc.constant("redacted_thinking"), data: fc.base64String() });

// Canonical Anthropic shape: alternating roles, tool results first in user turns.
const userTurn = fc
  .tuple(fc.array(toolResult, { maxLength: 2 }), fc.array(fc.oneof(text, image, document), { maxLength: 3 }))
  .filter(([results, rest]) => results.length + rest.length > 0)
  .map(([results, rest]) => ({ role: "user", content: [...results, ...rest] }));
const assistantTurn = fc
  .array(fc.oneof(text, toolUse, thinking, redacted), { minLength: 1, maxLength: 4 })
  .map((content) => ({ role: "assistant", content }));
const tool = fc
  .record({ name: id, description: fc.option(fc.string(), { nil: undefined }), input_schema: fc.constant({ type: "object", properties: {} }), cc: cacheControl })
  .map(({ cc, description, ...t }) => cached({ ...t, ...(description === undefined ? {} : { description }) }, cc));

const request = fc.record({
  model: fc.constant("claude-x"),
  max_tokens: fc.integer({ min: 1, max: 8000 }),
  system: fc.array(text, { minLength: 2, maxLength: 3 }),
  messages: fc.array(fc.tuple(userTurn, assistantTurn), { maxLength: 3 }).chain((pairs) =>
    userTurn.map((last) => [...pairs.flat(), last]),
  ),
  tools: fc.array(tool, { maxLength: 3 }),
  stream: fc.boolean(),
});

test("decode→encode preserves system, messages, tools, tool results, images, signatures and cache_control", () => {
  fc.assert(
    fc.property(request, (wire) => {
      const req = decodeRequest(wire);
      const { body, dropped } = encodeRequest(req, { model: wire.model });
      expect(dropped).toEqual([]);
      expect(body.messages).toEqual(wire.messages);
      expect(body.system).toEqual(wire.system);
      expect(body.tools ?? []).toEqual(wire.tools);
      expect(body.max_tokens).toBe(wire.max_tokens);
      expect(body.stream).toBe(wire.stream);
      expect(decodeRequest(body)).toEqual(req);
    }),
    { numRuns: 200 },
  );
});
