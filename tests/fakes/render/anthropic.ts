/** Anthropic Messages API wire format. */
import type { Reply, ReceivedRequest } from "../types.ts";
import type { ChatCall, Dialect, Route } from "./dialect.ts";
import { LISTED_MODELS, argumentFragments, randomId, stopReasonOf, textPieces, tokensOf, type StopReason } from "./shared.ts";

const STOP: Record<StopReason, string> = { stop: "end_turn", length: "max_tokens", tool_use: "tool_use", refusal: "refusal" };

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const MESSAGES_PATH = "/v1/messages";

function route(req: ReceivedRequest): Route {
  const isMessages = req.path === MESSAGES_PATH || req.path === `${MESSAGES_PATH}/count_tokens`;
  if (req.method === "POST" && isMessages) {
    const refused = checkHeaders(req.headers);
    if (refused) return { kind: "static", answer: refused };
    if (req.path.endsWith("/count_tokens")) {
      return { kind: "static", answer: { status: 200, body: JSON.stringify({ input_tokens: Math.ceil(req.bodyText.length / 4) }) } };
    }
    return { kind: "chat", call: { model: String(req.json?.model ?? "fake-model"), stream: req.json?.stream === true, includeUsage: true, sse: true } };
  }
  if (req.method === "GET" && req.path === "/v1/models") return { kind: "static", answer: { status: 200, body: MODELS_BODY } };
  return { kind: "static", answer: { status: 404, body: error(404, undefined, "Not Found") } };
}

function checkHeaders(headers: Record<string, string>) {
  const bearer = headers.authorization?.startsWith("Bearer ");
  if (!headers["x-api-key"] && !bearer) {
    return { status: 401, body: error(401, undefined, "x-api-key header is required") };
  }
  if (!headers["anthropic-version"]) {
    return { status: 400, body: error(400, undefined, "anthropic-version: header is required") };
  }
  return undefined;
}

const MODELS_BODY = JSON.stringify({
  data: LISTED_MODELS.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" })),
  has_more: false,
  first_id: LISTED_MODELS[0],
  last_id: LISTED_MODELS.at(-1),
});

function signatureOf(reply: Reply): string {
  return reply.thinking?.signature ?? "fake-thinking-signature";
}

function toolIds(reply: Reply): string[] {
  return (reply.toolCalls ?? []).map((t) => t.id ?? randomId("toolu_"));
}

function fullUsage(reply: Reply) {
  const t = tokensOf(reply);
  return {
    input_tokens: t.input,
    cache_creation_input_tokens: t.cacheWrite,
    cache_read_input_tokens: t.cacheRead,
    output_tokens: t.output,
  };
}

function body(reply: Reply, call: ChatCall): string {
  const ids = toolIds(reply);
  const content: unknown[] = [];
  if (reply.thinking) content.push({ type: "thinking", thinking: reply.thinking.text, signature: signatureOf(reply) });
  if (reply.text !== undefined) content.push({ type: "text", text: reply.text });
  (reply.toolCalls ?? []).forEach((t, i) => content.push({ type: "tool_use", id: ids[i], name: t.name, input: t.args }));
  return JSON.stringify({
    id: randomId("msg_"),
    type: "message",
    role: "assistant",
    model: reply.model ?? call.model,
    content,
    stop_reason: STOP[stopReasonOf(reply)],
    stop_sequence: null,
    usage: { ...fullUsage(reply), service_tier: "standard" },
  });
}

// `type` is always the first key: frame() reads the event name from it.
function events(reply: Reply, call: ChatCall): string[] {
  const usage = fullUsage(reply);
  const out: unknown[] = [
    {
      type: "message_start",
      message: {
        id: randomId("msg_"),
        type: "message",
        role: "assistant",
        model: reply.model ?? call.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1, service_tier: "standard" },
      },
    },
  ];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    out.push({ type: "content_block_start", index, content_block: start });
    if (index === 0) out.push({ type: "ping" });
    for (const delta of deltas) out.push({ type: "content_block_delta", index, delta });
    out.push({ type: "content_block_stop", index });
    index++;
  };
  if (reply.thinking) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      { type: "thinking_delta", thinking: reply.thinking.text },
      { type: "signature_delta", signature: signatureOf(reply) },
    ]);
  }
  if (reply.text !== undefined) {
    block({ type: "text", text: "" }, textPieces(reply).map((text) => ({ type: "text_delta", text })));
  }
  const ids = toolIds(reply);
  (reply.toolCalls ?? []).forEach((t, i) => {
    const fragments = ["", ...argumentFragments(t.args)];
    block({ type: "tool_use", id: ids[i], name: t.name, input: {} }, fragments.map((partial_json) => ({ type: "input_json_delta", partial_json })));
  });
  out.push({ type: "message_delta", delta: { stop_reason: STOP[stopReasonOf(reply)], stop_sequence: null }, usage });
  out.push({ type: "message_stop" });
  return out.map((e) => JSON.stringify(e));
}

const LEADING_TYPE = /^\{"type":"([^"]+)"/;

function eventName(payload: string): string {
  const leading = LEADING_TYPE.exec(payload)?.[1];
  if (leading) return leading;
  try {
    return String(JSON.parse(payload).type ?? "message");
  } catch {
    return "message";
  }
}

function frame(payloads: string[]): string[] {
  return payloads.map((p) => `event: ${eventName(p)}\ndata: ${p}\n\n`);
}

function error(status: number, type: string | undefined, message: string | undefined): string {
  return JSON.stringify({
    type: "error",
    error: { type: type ?? ERROR_TYPES[status] ?? "api_error", message: message ?? `Fake Anthropic error ${status}` },
    request_id: randomId("req_"),
  });
}

export const anthropic: Dialect = {
  route,
  body,
  events,
  frame,
  streamContentType: () => "text/event-stream; charset=utf-8",
  error,
  garbage: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n',
};
