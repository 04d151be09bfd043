/**
 * OpenAI chat-completions wire format (also served for the OpenAI-compatible
 * vendors: xai, groq, mistral, deepseek, openrouter, together, fireworks, perplexity).
 */
import type { Reply, ReceivedRequest } from "../types.ts";
import type { ChatCall, Dialect, Route } from "./dialect.ts";
import {
  LISTED_MODELS,
  argumentFragments,
  nowSeconds,
  randomId,
  stopReasonOf,
  textPieces,
  tokensOf,
  type StopReason,
} from "./shared.ts";

const FINISH: Record<StopReason, string> = {
  stop: "stop",
  length: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "invalid_request_error",
  429: "rate_limit_exceeded",
};

function route(req: ReceivedRequest): Route {
  // Presets put a prefix before the API path (`/openai/v1` for groq, `/api/v1` for openrouter).
  if (req.method === "POST" && req.path.endsWith("/chat/completions")) {
    const stream = req.json?.stream === true;
    const includeUsage = stream && req.json?.stream_options?.include_usage === true;
    return { kind: "chat", call: { model: String(req.json?.model ?? "fake-model"), stream, includeUsage, sse: true } };
  }
  if (req.method === "GET" && req.path.endsWith("/models")) return { kind: "static", answer: { status: 200, body: MODELS_BODY } };
  const message = `Invalid URL (${req.method} ${req.path})`;
  return { kind: "static", answer: { status: 404, body: error(404, undefined, message) } };
}

const MODELS_BODY = JSON.stringify({
  object: "list",
  data: LISTED_MODELS.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "fake" })),
});

function usage(reply: Reply) {
  const t = tokensOf(reply);
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: t.output,
    total_tokens: prompt + t.output,
    prompt_tokens_details: { cached_tokens: t.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: t.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function toolCallIds(reply: Reply): string[] {
  return (reply.toolCalls ?? []).map((t) => t.id ?? randomId("call_"));
}

function body(reply: Reply, call: ChatCall): string {
  const ids = toolCallIds(reply);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.text ?? null,
    refusal: null,
    annotations: [],
  };
  // OpenAI-compatible reasoning vendors (deepseek, xai) expose thinking this way.
  if (reply.thinking) message.reasoning_content = reply.thinking.text;
  if (reply.toolCalls?.length) {
    message.tool_calls = reply.toolCalls.map((t, i) => ({
      id: ids[i],
      type: "function",
      function: { name: t.name, arguments: JSON.stringify(t.args) },
    }));
  }
  return JSON.stringify({
    id: randomId("chatcmpl-"),
    object: "chat.completion",
    created: nowSeconds(),
    model: reply.model ?? call.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[stopReasonOf(reply)] }],
    usage: usage(reply),
    service_tier: "default",
    system_fingerprint: "fp_fake",
  });
}

function events(reply: Reply, call: ChatCall): string[] {
  const head = { id: randomId("chatcmpl-"), object: "chat.completion.chunk", created: nowSeconds(), model: reply.model ?? call.model };
  // With include_usage every chunk carries `usage: null` until the final usage chunk.
  const tail = call.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...tail });

  const out = [chunk({ role: "assistant", content: "", refusal: null })];
  if (reply.thinking) out.push(chunk({ reasoning_content: reply.thinking.text }));
  for (const piece of textPieces(reply)) out.push(chunk({ content: piece }));
  const ids = toolCallIds(reply);
  (reply.toolCalls ?? []).forEach((t, index) => {
    out.push(chunk({ tool_calls: [{ index, id: ids[index], type: "function", function: { name: t.name, arguments: "" } }] }));
    for (const fragment of argumentFragments(t.args)) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  out.push(chunk({}, FINISH[stopReasonOf(reply)]));
  if (call.includeUsage) out.push(JSON.stringify({ ...head, choices: [], usage: usage(reply) }));
  return out;
}

function frame(payloads: string[]): string[] {
  return [...payloads.map((p) => `data: ${p}\n\n`), "data: [DONE]\n\n"];
}

function error(status: number, type: string | undefined, message: string | undefined): string {
  return JSON.stringify({
    error: {
      message: message ?? `Fake OpenAI error ${status}`,
      type: type ?? ERROR_TYPES[status] ?? "server_error",
      param: null,
      code: status === 401 ? "invalid_api_key" : null,
    },
  });
}

export const openai: Dialect = {
  route,
  body,
  events,
  frame,
  streamContentType: () => "text/event-stream; charset=utf-8",
  error,
  garbage: () => 'data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":\n\n',
};
