/**
 * OpenAI Responses API wire format (POST /v1/responses), served by the OpenAI fake beside chat
 * completions. Written from OpenAI's API reference and the recordings in
 * vendor-recordings/openai/responses__*: a response object of output items (reasoning, message,
 * function_call), and a stream of typed events (`event:` line = the payload's `type`), each with a
 * sequence_number, ending with response.completed (or .incomplete) and no terminator.
 */
import type { Reply, ReceivedRequest } from "../types.ts";
import type { ChatCall, Dialect, Route } from "./dialect.ts";
import { argumentFragments, nowSeconds, randomId, stopReasonOf, textPieces, tokensOf } from "./shared.ts";

type Json = Record<string, unknown>;

function route(req: ReceivedRequest): Route | undefined {
  if (req.method !== "POST" || !req.path.endsWith("/responses")) return undefined;
  return { kind: "chat", call: { model: String(req.json?.model ?? "fake-model"), stream: req.json?.stream === true, includeUsage: true, sse: true, responses: true } };
}

function usage(reply: Reply): Json {
  const t = tokensOf(reply);
  const input = t.input + t.cacheRead + t.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: t.cacheRead },
    output_tokens: t.output,
    output_tokens_details: { reasoning_tokens: t.reasoning },
    total_tokens: input + t.output,
  };
}

/** The output items of a reply, ids fixed once so the stream and its final object agree. */
function outputItems(reply: Reply): Json[] {
  const items: Json[] = [];
  if (reply.thinking) {
    items.push({ id: randomId("rs_"), type: "reasoning", summary: [{ type: "summary_text", text: reply.thinking.text }], ...(reply.thinking.signature ? { encrypted_content: reply.thinking.signature } : {}) });
  }
  if (reply.text !== undefined) {
    const part = stopReasonOf(reply) === "refusal" ? { type: "refusal", refusal: reply.text } : { type: "output_text", text: reply.text, annotations: [], logprobs: [] };
    items.push({ id: randomId("msg_"), type: "message", status: "completed", role: "assistant", content: [part] });
  }
  for (const t of reply.toolCalls ?? []) {
    items.push({ id: randomId("fc_"), type: "function_call", status: "completed", call_id: t.id ?? randomId("call_"), name: t.name, arguments: JSON.stringify(t.args) });
  }
  return items;
}

function responseObject(reply: Reply, call: ChatCall, id: string, output: Json[], final: boolean): Json {
  const cut = stopReasonOf(reply) === "length";
  return {
    id,
    object: "response",
    created_at: nowSeconds(),
    status: final ? (cut ? "incomplete" : "completed") : "in_progress",
    background: false,
    error: null,
    incomplete_details: final && cut ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: null,
    model: reply.model ?? call.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: final ? usage(reply) : null,
    user: null,
    metadata: {},
  };
}

function body(reply: Reply, call: ChatCall): string {
  return JSON.stringify(responseObject(reply, call, randomId("resp_"), outputItems(reply), true));
}

/** The events that stream one output item, from its output_item.added to its output_item.done. */
function itemEvents(item: Json, output_index: number, reply: Reply): Json[] {
  const item_id = item.id;
  const added = { type: "response.output_item.added", output_index, item: opened(item) };
  const done = { type: "response.output_item.done", output_index, item };
  if (item.type === "reasoning") {
    const text = reply.thinking!.text;
    const at = { item_id, output_index, summary_index: 0 };
    return [
      added,
      { type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } },
      { type: "response.reasoning_summary_text.delta", ...at, delta: text },
      { type: "response.reasoning_summary_text.done", ...at, text },
      { type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text } },
      done,
    ];
  }
  if (item.type === "function_call") {
    const args = String(item.arguments);
    const deltas = argumentFragments(JSON.parse(args)).map((delta) => ({ type: "response.function_call_arguments.delta", item_id, output_index, delta }));
    return [added, ...deltas, { type: "response.function_call_arguments.done", item_id, output_index, arguments: args }, done];
  }
  const part = (item.content as Json[])[0]!;
  const at = { item_id, output_index, content_index: 0 };
  if (part.type === "refusal") {
    const refusal = String(part.refusal);
    return [added, { type: "response.content_part.added", ...at, part: { type: "refusal", refusal: "" } }, { type: "response.refusal.delta", ...at, delta: refusal }, { type: "response.refusal.done", ...at, refusal }, { type: "response.content_part.done", ...at, part }, done];
  }
  const text = String(part.text);
  return [
    added,
    { type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [], logprobs: [] } },
    ...textPieces(reply).map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
    { type: "response.output_text.done", ...at, text, logprobs: [] },
    { type: "response.content_part.done", ...at, part },
    done,
  ];
}

/** An item as output_item.added shows it: in progress, with nothing generated yet. */
function opened(item: Json): Json {
  if (item.type === "reasoning") return { id: item.id, type: "reasoning", summary: [] };
  if (item.type === "function_call") return { ...item, status: "in_progress", arguments: "" };
  return { ...item, status: "in_progress", content: [] };
}

function events(reply: Reply, call: ChatCall): string[] {
  const id = randomId("resp_");
  const output = outputItems(reply);
  const start = responseObject(reply, call, id, [], false);
  const final = responseObject(reply, call, id, output, true);
  const all: Json[] = [
    { type: "response.created", response: start },
    { type: "response.in_progress", response: start },
    ...output.flatMap((item, i) => itemEvents(item, i, reply)),
    { type: final.status === "incomplete" ? "response.incomplete" : "response.completed", response: final },
  ];
  return all.map((e, sequence_number) => JSON.stringify({ ...e, sequence_number }));
}

const TYPE = /"type":"([^"]+)"/;

/** Each payload with its `event:` line (its type, read without parsing: recordings may be cut); no terminator. */
function frame(payloads: string[]): string[] {
  return payloads.map((p) => `event: ${TYPE.exec(p)?.[1] ?? "message"}\ndata: ${p}\n\n`);
}

/** The OpenAI fake's dialect with /responses served in this one (a ChatCall says which it is). */
export function withResponses(chat: Dialect): Dialect {
  const pick = (call: ChatCall) => (call.responses ? responses : chat);
  return {
    route: (req) => route(req) ?? chat.route(req),
    body: (reply, call) => pick(call).body(reply, call),
    events: (reply, call) => pick(call).events(reply, call),
    frame: (payloads, call) => pick(call).frame(payloads, call),
    streamContentType: (call) => pick(call).streamContentType(call),
    error: chat.error,
    garbage: (call) => pick(call).garbage(call),
  };
}

const responses: Omit<Dialect, "route" | "error"> = {
  body,
  events,
  frame,
  streamContentType: () => "text/event-stream; charset=utf-8",
  garbage: () => 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n',
};
