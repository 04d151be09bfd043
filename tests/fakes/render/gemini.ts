/** Gemini API (generativelanguage v1beta) wire format. */
import type { Reply, ReceivedRequest } from "../types.ts";
import type { ChatCall, Dialect, Route } from "./dialect.ts";
import { LISTED_MODELS, randomId, stopReasonOf, textPieces, tokensOf, type StopReason } from "./shared.ts";

const FINISH: Record<StopReason, string> = { stop: "STOP", length: "MAX_TOKENS", tool_use: "STOP", refusal: "SAFETY" };

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

const MODEL_CALL = /^\/v1(?:beta)?\/models\/(.+):(generateContent|streamGenerateContent|countTokens)$/;

function route(req: ReceivedRequest): Route {
  const query = new URLSearchParams(req.search);
  // Keys in the URL leak into logs; the gateway must use the header. Tests assert this never happens.
  if (query.has("key")) {
    return refuse(400, "API key must be sent in the x-goog-api-key header, not the key= query parameter");
  }
  const match = req.method === "POST" ? MODEL_CALL.exec(req.path) : null;
  if (match) {
    if (!req.headers["x-goog-api-key"]) {
      return refuse(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
    }
    if (match[2] === "countTokens") return { kind: "static", answer: { status: 200, body: countTokens(req.json) } };
    const stream = match[2] === "streamGenerateContent";
    return { kind: "chat", call: { model: match[1], stream, includeUsage: true, sse: stream && query.get("alt") === "sse" } };
  }
  if (req.method === "GET" && /^\/v1(?:beta)?\/models$/.test(req.path)) return { kind: "static", answer: { status: 200, body: MODELS_BODY } };
  return refuse(404, `Requested entity was not found: ${req.method} ${req.path}`);
}

/** countTokens: about four characters a token (Google's rule of thumb), over the text parts of `contents` or `generateContentRequest.contents`. */
function countTokens(body: any): string {
  const contents = body?.generateContentRequest?.contents ?? body?.contents ?? [];
  const chars = (contents as any[]).flatMap((c) => c?.parts ?? []).reduce((n: number, p: any) => n + (typeof p?.text === "string" ? p.text.length : 0), 0);
  const totalTokens = Math.ceil(chars / 4);
  return JSON.stringify({ totalTokens, promptTokensDetails: [{ modality: "TEXT", tokenCount: totalTokens }] });
}

function refuse(status: number, message: string): Route {
  return { kind: "static", answer: { status, body: error(status, undefined, message) } };
}

const MODELS_BODY = JSON.stringify({
  models: LISTED_MODELS.map((id) => ({
    name: `models/${id}`,
    displayName: id,
    supportedGenerationMethods: ["generateContent", "countTokens"],
  })),
});

type Part = Record<string, unknown>;

/** Parts grouped as they are streamed: one chunk per group. The signature rides on the part Gemini puts it on. */
function partGroups(reply: Reply): Part[][] {
  const thought: Part[][] = reply.thinking ? [[{ text: reply.thinking.text, thought: true }]] : [];
  const text: Part[][] = textPieces(reply).map((piece) => [{ text: piece }]);
  const calls: Part[] = (reply.toolCalls ?? []).map((t) => ({ functionCall: { ...(t.id ? { id: t.id } : {}), name: t.name, args: t.args } }));
  const groups = [...thought, ...text, ...(calls.length ? [calls] : [])];
  const signature = reply.thinking?.signature;
  // Parts are fresh objects, so tagging the carrier in place is safe.
  if (signature) {
    const carrier = calls[0] ?? groups.at(-1)![0];
    carrier.thoughtSignature = signature;
  }
  return groups;
}

function usageMetadata(reply: Reply) {
  const t = tokensOf(reply);
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, t.output - t.reasoning),
    totalTokenCount: prompt + t.output,
    ...(t.cacheRead ? { cachedContentTokenCount: t.cacheRead } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
    ...(t.reasoning ? { thoughtsTokenCount: t.reasoning } : {}),
  };
}

function response(reply: Reply, call: ChatCall, parts: Part[], finish: boolean, responseId: string): string {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (finish) candidate.finishReason = FINISH[stopReasonOf(reply)];
  candidate.index = 0;
  return JSON.stringify({
    candidates: [candidate],
    usageMetadata: usageMetadata(reply),
    modelVersion: reply.model ?? call.model,
    responseId,
  });
}

function body(reply: Reply, call: ChatCall): string {
  const joined = { ...reply, textChunks: 1 };
  return response(reply, call, partGroups(joined).flat(), true, randomId(""));
}

function events(reply: Reply, call: ChatCall): string[] {
  const groups = partGroups(reply);
  if (groups.length === 0) groups.push([{ text: "" }]);
  const id = randomId("");
  return groups.map((parts, i) => response(reply, call, parts, i === groups.length - 1, id));
}

function frame(payloads: string[], call: ChatCall): string[] {
  if (call.sse) return payloads.map((p) => `data: ${p}\r\n\r\n`);
  // Without alt=sse the stream is one JSON array delivered element by element.
  if (payloads.length === 0) return ["[]"];
  return [...payloads.map((p, i) => (i === 0 ? `[${p}` : `,\r\n${p}`)), "]"];
}

function error(status: number, type: string | undefined, message: string | undefined): string {
  return JSON.stringify({
    error: { code: status, message: message ?? `Fake Gemini error ${status}`, status: type ?? STATUS_NAMES[status] ?? "UNKNOWN" },
  });
}

export const gemini: Dialect = {
  route,
  body,
  events,
  frame,
  streamContentType: (call) => (call.sse ? "text/event-stream" : "application/json; charset=UTF-8"),
  error,
  garbage: (call) => (call.sse ? 'data: {"candidates":[{"content":{"parts":[{"text":\r\n\r\n' : ',\r\n{"candidates":[{"content":'),
};
