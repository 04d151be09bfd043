/** Ollama native API wire format (NDJSON streaming). */
import type { Reply, ReceivedRequest } from "../types.ts";
import type { ChatCall, Dialect, Route } from "./dialect.ts";
import { LISTED_MODELS, stopReasonOf, textPieces, tokensOf, type StopReason } from "./shared.ts";

const DONE_REASON: Record<StopReason, string> = { stop: "stop", length: "length", tool_use: "stop", refusal: "stop" };

function route(req: ReceivedRequest): Route {
  if (req.method === "POST" && req.path === "/api/chat") {
    // Ollama streams unless told otherwise.
    const stream = req.json?.stream !== false;
    return { kind: "chat", call: { model: String(req.json?.model ?? "fake-model"), stream, includeUsage: true, sse: false } };
  }
  if (req.method === "GET" && req.path === "/api/tags") return { kind: "static", answer: { status: 200, body: TAGS_BODY } };
  if (req.method === "GET" && req.path === "/api/version") return { kind: "static", answer: { status: 200, body: '{"version":"0.12.6"}' } };
  return { kind: "static", answer: { status: 404, body: error(404, undefined, "404 page not found") } };
}

const TAGS_BODY = JSON.stringify({
  models: LISTED_MODELS.map((id) => ({
    name: `${id}:latest`,
    model: `${id}:latest`,
    modified_at: "2025-01-01T00:00:00Z",
    size: 2019393189,
    digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
    details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
  })),
});

function line(reply: Reply, call: ChatCall, message: Record<string, unknown>, done: boolean): string {
  const head = { model: reply.model ?? call.model, created_at: new Date().toISOString(), message: { role: "assistant", content: "", ...message } };
  if (!done) return JSON.stringify({ ...head, done: false });
  const t = tokensOf(reply);
  return JSON.stringify({
    ...head,
    done: true,
    done_reason: DONE_REASON[stopReasonOf(reply)],
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: t.input + t.cacheRead + t.cacheWrite,
    prompt_eval_duration: 200_000,
    eval_count: t.output,
    eval_duration: 700_000,
  });
}

function toolCalls(reply: Reply) {
  return (reply.toolCalls ?? []).map((t, index) => ({
    ...(t.id ? { id: t.id } : {}),
    function: { index, name: t.name, arguments: t.args },
  }));
}

function body(reply: Reply, call: ChatCall): string {
  const message: Record<string, unknown> = { content: reply.text ?? "" };
  if (reply.thinking) message.thinking = reply.thinking.text;
  if (reply.toolCalls?.length) message.tool_calls = toolCalls(reply);
  return line(reply, call, message, true);
}

function events(reply: Reply, call: ChatCall): string[] {
  const out: string[] = [];
  if (reply.thinking) out.push(line(reply, call, { thinking: reply.thinking.text }, false));
  for (const piece of textPieces(reply)) out.push(line(reply, call, { content: piece }, false));
  // Ollama sends each tool call whole, in one line.
  if (reply.toolCalls?.length) out.push(line(reply, call, { tool_calls: toolCalls(reply) }, false));
  out.push(line(reply, call, {}, true));
  return out;
}

function error(_status: number, _type: string | undefined, message: string | undefined): string {
  return JSON.stringify({ error: message ?? "fake ollama error" });
}

export const ollama: Dialect = {
  route,
  body,
  events,
  frame: (payloads) => payloads.map((p) => `${p}\n`),
  streamContentType: () => "application/x-ndjson",
  error,
  garbage: () => '{"model":"broken","message":{"content":\n',
};
