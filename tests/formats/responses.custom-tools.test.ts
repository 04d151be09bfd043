// Responses `custom` tools (freeform input, as Codex's apply_patch) through the codec: a function
// taking its text as `input` for other vendors, custom_tool_call items and events for the client
// that declared one, and the custom call and its output read back from a conversation's input.
import { describe, expect, test } from "bun:test";
import { codecFor } from "../../src/core/formats/index.ts";
import { decodeInput, responsesCodec } from "../../src/core/formats/responses/index.ts";
import type { ChatResponse, StreamEvent, ToolDefinition } from "../../src/core/ir.ts";
import { assemble, decodeRaw, sseEvents } from "./responses.helpers.ts";

const GRAMMAR = 'start: "*** Begin Patch" LF body "*** End Patch"';
const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+say "hi"\n*** End Patch\n';
const applyPatch = { type: "custom", name: "apply_patch", description: "Edit files. FREEFORM.", format: { type: "grammar", syntax: "lark", definition: GRAMMAR } };
const codexBody = {
  model: "gpt-5.5",
  input: "patch a.txt",
  tools: [
    { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } } } },
    applyPatch,
    { type: "tool_search", execution: "client", parameters: { type: "object", properties: {} } },
    { type: "web_search", external_web_access: false },
  ],
  tool_choice: { type: "custom", name: "apply_patch" },
};
const usage = { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 };

function decoded() {
  return responsesCodec.decodeRequest(structuredClone(codexBody));
}

describe("a custom tool in a request", () => {
  test("becomes a function taking its text as `input`, its grammar described; hosted tools stay in extra", () => {
    const req = decoded();
    expect(req.tools!.map((t) => t.name)).toEqual(["exec_command", "apply_patch"]);
    const tool = req.tools![1]!;
    expect(tool.custom).toEqual({ format: applyPatch.format });
    expect(tool.description).toBe(applyPatch.description);
    expect(tool.parameters.required).toEqual(["input"]);
    expect((tool.parameters.properties as any).input.type).toBe("string");
    expect((tool.parameters.properties as any).input.description).toContain(GRAMMAR);
    expect(req.toolChoice).toEqual({ type: "tool", name: "apply_patch" });
    expect((req.extra!.tools as any[]).map((t) => t.type)).toEqual(["tool_search", "web_search"]);
  });

  // The hosted tools are left out (the router reports `extra`'s keys as dropped: tests/clients/codex.test.ts).
  test("translated for Anthropic: a tool with that schema, forced by tool_choice; no hosted tool", () => {
    const { body } = codecFor("anthropic").encodeRequest(decoded(), { model: "claude-sonnet-4-5", defaultMaxTokens: 1024 });
    const tools = body.tools as any[];
    expect(tools.map((t) => t.name)).toEqual(["exec_command", "apply_patch"]);
    expect(tools[1].input_schema.required).toEqual(["input"]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "apply_patch" });
  });

  test("encoded for a Responses vendor: the custom tool and its tool_choice as they came", () => {
    const { body } = responsesCodec.encodeRequest(decoded(), { model: "gpt-5.5" });
    expect(body.tools).toEqual(codexBody.tools);
    expect(body.tool_choice).toEqual(codexBody.tool_choice);
  });
});

describe("custom tool calls in a conversation's input", () => {
  const items = [
    { type: "message", role: "user", content: [{ type: "input_text", text: "patch a.txt" }] },
    { type: "custom_tool_call", id: "ctc_1", call_id: "call_p", name: "apply_patch", input: PATCH },
    { type: "custom_tool_call_output", call_id: "call_p", output: "Success. Updated a.txt" },
  ];

  test("decode to the IR call (its text as `input`) and its result", () => {
    const { messages } = decodeInput(items);
    expect(messages[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "call_p", name: "apply_patch", input: { input: PATCH } }] });
    expect(messages[2]).toEqual({ role: "user", content: [{ type: "tool_result", toolUseId: "call_p", content: [{ type: "text", text: "Success. Updated a.txt" }] }] });
  });

  test("go back to a Responses vendor as custom items; a function tool's call stays a function call", () => {
    const req = responsesCodec.decodeRequest({ ...structuredClone(codexBody), input: items });
    const { body } = responsesCodec.encodeRequest(req, { model: "gpt-5.5" });
    const input = body.input as any[];
    expect(input[1]).toEqual({ type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: PATCH });
    expect(input[2]).toEqual({ type: "custom_tool_call_output", call_id: "call_p", output: "Success. Updated a.txt" });

    const fnItems = [items[0], { type: "function_call", call_id: "call_f", name: "exec_command", arguments: '{"cmd":"ls"}' }, { type: "function_call_output", call_id: "call_f", output: "a.txt" }];
    const fn = responsesCodec.encodeRequest(responsesCodec.decodeRequest({ ...structuredClone(codexBody), input: fnItems }), { model: "gpt-5.5" });
    expect((fn.body.input as any[]).slice(1).map((i) => i.type)).toEqual(["function_call", "function_call_output"]);
  });
});

const tools: ToolDefinition[] = decoded().tools!;
const answer: ChatResponse = {
  id: "msg_1",
  model: "claude-sonnet-4-5",
  content: [
    { type: "tool_use", id: "toolu_p", name: "apply_patch", input: { input: PATCH } },
    { type: "tool_use", id: "toolu_e", name: "exec_command", input: { cmd: "ls" } },
  ],
  stopReason: "tool_use",
  usage,
};

describe("a custom tool's call in the answer", () => {
  test("is a custom_tool_call item with the text; a function tool's is a function_call", () => {
    const output = responsesCodec.encodeResponse(answer, { model: "claude-sonnet-4-5", tools }).output as any[];
    expect(output[0]).toMatchObject({ type: "custom_tool_call", status: "completed", call_id: "toolu_p", name: "apply_patch", input: PATCH });
    expect(output[0].id).toStartWith("ctc_");
    expect(output[1]).toMatchObject({ type: "function_call", call_id: "toolu_e", name: "exec_command", arguments: '{"cmd":"ls"}' });
  });

  test("without the request's tools every call is a function_call", () => {
    const output = responsesCodec.encodeResponse(answer, { model: "claude-sonnet-4-5" }).output as any[];
    expect(output.map((o) => o.type)).toEqual(["function_call", "function_call"]);
  });

  test("read back from a Responses vendor's answer: the IR call with its text as `input`", () => {
    const encoded = responsesCodec.encodeResponse(answer, { model: "gpt-5.5", tools });
    expect(responsesCodec.decodeResponse(encoded).content).toEqual(answer.content);
  });
});

const customTurn: StreamEvent[] = [
  { type: "start", id: "msg_1", model: "claude-sonnet-4-5" },
  { type: "block_start", index: 0, block: { type: "tool_use", id: "toolu_p", name: "apply_patch" } },
  { type: "tool_args_delta", index: 0, json: '{"input":"*** Begin Patch\\n' },
  { type: "tool_args_delta", index: 0, json: PATCH.slice("*** Begin Patch\n".length).replace(/\n/g, "\\n").replace(/"/g, '\\"') + '"}' },
  { type: "block_stop", index: 0 },
  { type: "finish", stopReason: "tool_use", usage },
];

describe("a custom tool's call in a stream", () => {
  test("is announced as a custom_tool_call item, its whole text in one input delta when the call ends", () => {
    const encoder = responsesCodec.streamEncoder({ model: "claude-sonnet-4-5", tools });
    const events = sseEvents(customTurn.map((e) => encoder.encode(e)).join(""));
    expect(events.map((e) => e.data.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const [added, delta, done, itemDone, completed] = events.slice(2).map((e) => e.data as any);
    expect(added.item).toMatchObject({ type: "custom_tool_call", status: "in_progress", call_id: "toolu_p", name: "apply_patch", input: "" });
    expect(delta).toMatchObject({ item_id: added.item.id, output_index: 0, delta: PATCH });
    expect(done).toMatchObject({ item_id: added.item.id, output_index: 0, input: PATCH });
    expect(itemDone.item).toMatchObject({ id: added.item.id, type: "custom_tool_call", status: "completed", input: PATCH });
    expect(completed.response.output).toEqual([itemDone.item]);
  });

  test("decoded from a Responses vendor's stream: JSON arguments `{input}`, the text escaped, deltas or none", () => {
    const stream = (deltas: string[]) =>
      [
        { type: "response.created", response: { id: "resp_1", model: "gpt-5.5" } },
        { type: "response.output_item.added", output_index: 0, item: { type: "custom_tool_call", id: "ctc_1", call_id: "call_p", name: "apply_patch", input: "" } },
        ...deltas.map((delta) => ({ type: "response.custom_tool_call_input.delta", output_index: 0, item_id: "ctc_1", delta })),
        { type: "response.custom_tool_call_input.done", output_index: 0, item_id: "ctc_1", input: PATCH },
        { type: "response.output_item.done", output_index: 0, item: { type: "custom_tool_call", id: "ctc_1", call_id: "call_p", name: "apply_patch", input: PATCH } },
        { type: "response.completed", response: { id: "resp_1", status: "completed", output: [], usage: { input_tokens: 5, output_tokens: 7 } } },
      ].map((e) => ({ data: JSON.stringify(e) }));
    for (const deltas of [[PATCH.slice(0, 10), PATCH.slice(10)], []]) {
      const turn = assemble(decodeRaw(stream(deltas)));
      expect(turn.content).toEqual([{ type: "tool_use", id: "call_p", name: "apply_patch", input: { input: PATCH } }]);
      expect(turn.stopReason).toBe("tool_use");
    }
  });
});
