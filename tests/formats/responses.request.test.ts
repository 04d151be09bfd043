// Responses request bodies ↔ IR: each input item type, instructions, tools, structured output,
// reasoning, conversation state (`store`, `previous_response_id`), wire-path extras, and the
// 400s a malformed body gets.
import { describe, expect, test } from "bun:test";
import { responsesCodec } from "../../src/core/formats/responses/index.ts";
import { CodecError } from "../../src/core/formats/types.ts";

const decode = (body: unknown) => responsesCodec.decodeRequest(body);
const encode = (body: Record<string, unknown>) => responsesCodec.encodeRequest(decode(body), { model: body.model as string });

describe("responses request decode", () => {
  test("a string input is one user message; instructions are the system text", () => {
    const req = decode({ model: "gpt-5", input: "Hi there", instructions: "Be brief." });
    expect(req.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(req.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi there" }] }]);
    expect(req.stream).toBe(false);
  });

  test("message items (typed and easy), developer messages and images", () => {
    const req = decode({
      model: "gpt-5",
      input: [
        { role: "developer", content: "Answer in French." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "What is this?" }, { type: "input_image", image_url: "data:image/png;base64,iVBOR", detail: "high" }] },
        { role: "assistant", content: [{ type: "output_text", text: "Un chat.", annotations: [] }] },
        { role: "user", content: [{ type: "input_image", image_url: "https://x.test/cat.jpg" }, { type: "input_file", file_id: "file-1" }] },
      ],
    });
    expect(req.system).toEqual([{ type: "text", text: "Answer in French." }]);
    expect(req.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } }] },
      { role: "assistant", content: [{ type: "text", text: "Un chat." }] },
      { role: "user", content: [{ type: "image", source: { kind: "url", url: "https://x.test/cat.jpg" } }, { type: "opaque", format: "responses", value: { type: "input_file", file_id: "file-1" } }] },
    ]);
  });

  test("reasoning, function_call and function_call_output items join the turns they belong to", () => {
    const req = decode({
      model: "gpt-5",
      input: [
        { role: "user", content: "Weather in Paris and Rome?" },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Two cities." }, { type: "summary_text", text: "Call twice." }], encrypted_content: "enc==" },
        { type: "function_call", id: "fc_1", call_id: "call_a", name: "weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_b", name: "weather", arguments: "" },
        { type: "function_call_output", call_id: "call_a", output: "18C" },
        { type: "function_call_output", call_id: "call_b", output: [{ type: "input_text", text: "22C" }, { type: "input_image", image_url: "https://x.test/map.png" }] },
        { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "rome" } },
      ],
    });
    expect(req.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "Two cities.\n\nCall twice.", signature: "enc==" },
          { type: "tool_use", id: "call_a", name: "weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_b", name: "weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", toolUseId: "call_a", content: [{ type: "text", text: "18C" }] },
          { type: "tool_result", toolUseId: "call_b", content: [{ type: "text", text: "22C" }, { type: "image", source: { kind: "url", url: "https://x.test/map.png" } }] },
          { type: "opaque", format: "responses", value: { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "rome" } } },
        ],
      },
    ]);
  });

  test("a developer message mid-conversation stays in place; a message of an unknown role is kept whole", () => {
    const critic = { type: "message", role: "critic", content: "Too long." };
    const req = decode({
      model: "m",
      input: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello!" },
        { role: "developer", content: [{ type: "input_text", text: "From now on, answer in French." }] },
        critic,
        { role: "user", content: "How are you?" },
      ],
    });
    expect(req.system).toBeUndefined();
    expect(req.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello!" }] },
      { role: "system", content: [{ type: "text", text: "From now on, answer in French." }] },
      { role: "user", content: [], verbatim: { type: "opaque", format: "responses", value: critic } },
      { role: "user", content: [{ type: "text", text: "How are you?" }] },
    ]);
    const { body, dropped } = responsesCodec.encodeRequest(req, { model: "m" });
    expect(dropped).toEqual([]);
    expect((body.input as unknown[]).slice(2, 4)).toEqual([{ role: "developer", content: [{ type: "input_text", text: "From now on, answer in French." }] }, critic]);
    // Another format's kept entry is reported, not sent.
    const other = responsesCodec.encodeRequest({ ...req, messages: [{ role: "user", content: [], verbatim: { type: "opaque", format: "anthropic", value: {} } }] }, { model: "m" });
    expect(other.dropped).toEqual(["messages[0] (an entry of an unknown role)"]);
  });

  test("parameters, tools, structured output, reasoning and conversation state", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const req = decode({
      model: "gpt-5",
      input: "x",
      stream: true,
      max_output_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: false,
      tools: [{ type: "function", name: "f", description: "d", parameters: schema, strict: true }, { type: "web_search" }],
      tool_choice: { type: "function", name: "f" },
      text: { format: { type: "json_schema", name: "out", schema, strict: true, description: "the answer" }, verbosity: "low" },
      reasoning: { effort: "high", summary: "auto" },
      store: false,
      previous_response_id: "resp_prev",
      include: ["reasoning.encrypted_content"],
      user: "u-1",
    });
    expect(req).toMatchObject({
      stream: true,
      maxTokens: 500,
      temperature: 0.2,
      topP: 0.9,
      parallelToolCalls: false,
      tools: [{ name: "f", description: "d", parameters: schema, strict: true }],
      toolChoice: { type: "tool", name: "f" },
      responseFormat: { type: "json_schema", name: "out", schema, strict: true },
      reasoning: { effort: "high" },
      store: false,
      previousResponseId: "resp_prev",
      user: "u-1",
    });
    expect(req.extra).toEqual({
      include: ["reasoning.encrypted_content"],
      tools: [{ type: "web_search" }],
      "text.verbosity": "low",
      "text.format.description": "the answer",
      "reasoning.summary": "auto",
    });
  });

  test("effort none turns reasoning off; efforts the IR cannot name stay for OpenAI", () => {
    expect(decode({ model: "m", input: "x", reasoning: { effort: "none" } }).reasoning).toEqual({ disabled: true });
    const req = decode({ model: "m", input: "x", reasoning: { effort: "xhigh" } });
    expect(req.reasoning).toBeUndefined();
    expect(req.extra).toEqual({ "reasoning.effort": "xhigh" });
  });

  test.each([
    [{ input: "x" }, "model"],
    [{ model: "m", input: 5 }, "input"],
    [{ model: "m", input: [{ role: 7, content: "x" }] }, "input[0].role"],
    [{ model: "m", input: [{ type: "function_call", call_id: "c", name: "f", arguments: "{oops" }] }, "input[0].arguments"],
    [{ model: "m", input: [{ type: "function_call_output", output: "x" }] }, "input[0].call_id"],
    [{ model: "m", input: "x", max_output_tokens: -1 }, "max_output_tokens"],
    [{ model: "m", input: "x", text: { format: { type: "yaml" } } }, "text.format.type"],
    [{ model: "m", input: "x", tools: [{ type: "function", parameters: {} }] }, "tools[0].name"],
    [{ model: "m", input: "x", store: "yes" }, "store"],
  ])("a malformed body is a CodecError naming the parameter (%j)", (body, parameter) => {
    try {
      decode(body);
      throw new Error("decoded");
    } catch (e) {
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).parameter).toBe(parameter);
    }
  });
});

describe("responses request encode", () => {
  test("a decoded body encodes back to the same request", () => {
    const body = {
      model: "gpt-5",
      instructions: "Be brief.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather?" }, { type: "input_image", image_url: "https://x.test/a.png", detail: "auto" }] },
        { type: "reasoning", summary: [{ type: "summary_text", text: "Call it." }], encrypted_content: "enc==" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "function_call", call_id: "call_a", name: "weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "call_a", output: "18C" },
        { type: "item_reference", id: "ws_1" },
      ],
      max_output_tokens: 300,
      tools: [{ type: "function", name: "weather", parameters: { type: "object" }, strict: false }, { type: "file_search", vector_store_ids: ["vs_1"] }],
      tool_choice: "required",
      text: { verbosity: "low", format: { type: "json_schema", name: "out", description: "d", schema: { type: "object" }, strict: true } },
      reasoning: { summary: "auto", effort: "low" },
      include: ["reasoning.encrypted_content"],
      previous_response_id: "resp_1",
      store: false,
      stream: true,
    };
    const { body: out, dropped } = encode(body);
    expect(dropped).toEqual([]);
    expect(out).toEqual(body);
  });

  test("what Responses cannot carry is reported dropped; unsigned reasoning is left out", () => {
    const { body, dropped } = responsesCodec.encodeRequest(
      {
        model: "m",
        stream: false,
        stop: ["END"],
        topK: 5,
        system: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }, { type: "opaque", format: "anthropic", value: { type: "document" } }] },
          { role: "assistant", content: [{ type: "thinking", text: "deepseek reasoning" }, { type: "text", text: "hello" }] },
        ],
        reasoning: { budgetTokens: 4000 },
        responseFormat: { type: "json" },
        toolChoice: { type: "tool", name: "f" },
      },
      { model: "gpt-5" },
    );
    expect(dropped).toEqual(["messages[0].content[1] (anthropic block)", "top_k", "stop"]);
    expect(body).toEqual({
      model: "gpt-5",
      instructions: "a\n\nb",
      input: [
        { role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "hello" }] },
      ],
      tool_choice: { type: "function", name: "f" },
      text: { format: { type: "json_object" } },
      reasoning: { effort: "medium" },
    });
  });
});
