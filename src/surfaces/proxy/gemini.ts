// Google's Gemini API on the local proxy: POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent (SSE with `alt=sse`, else the JSON-array stream Google sends without it)
// and :countTokens. The chat methods are routed like any chat call (chat.ts), with the model and
// the stream flag taken from the path; errors are Google's `{error: {code, message, status}}`.
// The client's Google key (`x-goog-api-key`, or `?key=` handed in as that header) is for Google alone.
import type { Relay } from "../../relay.ts";
import { CoreError } from "../../core/errors.ts";
import { geminiCodec } from "../../core/formats/gemini/index.ts";
import { geminiPath } from "../../core/formats/gemini/path.ts";
import { isRecord } from "../../core/formats/shared/guards.ts";
import { SseParser } from "../../core/formats/sse.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { describeVendorFailure } from "../../core/limits/failure.ts";
import { modelNotFound } from "../../core/router/plan.ts";
import { checkWireNames, clientInputError } from "../../core/router/validate.ts";
import { estimateTokensFor } from "../../core/tokens.ts";
import { requestInfo } from "../app.ts";
import { readBody } from "../body.ts";
import { errorResponse, json } from "../http.ts";
import { chat } from "./chat.ts";
import { countKey, vendorCount } from "./vendor-count.ts";

const KEY_HEADER = "x-goog-api-key";

/** Serves a path under /v1beta/models/ (or /v1/models/): a model method, or a 404 in Google's shape. */
export function gemini(relay: Relay, request: Request, path: string): Promise<Response> {
  const call = geminiPath(path);
  return serve(relay, request, call?.model ?? "", call?.method ?? "");
}

async function serve(relay: Relay, request: Request, rawModel: string, method: string): Promise<Response> {
  const ri = requestInfo(request);
  try {
    const query = new URL(request.url).searchParams;
    const model = decodeModel(rawModel);
    const headers = withQueryKey(request.headers, query);
    if (method === "generateContent") return await chat(relay, request, "gemini", { model, stream: false, headers });
    if (method === "streamGenerateContent") {
      const res = await chat(relay, request, "gemini", { model, stream: true, headers });
      return query.get("alt") === "sse" ? res : asJsonArray(res);
    }
    if (method === "countTokens") return await countTokens(relay, request, model, headers);
    throw new CoreError(404, "not_found", "Relay serves POST /v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens");
  } catch (e) {
    const err = clientInputError(e);
    if (err) return errorResponse(err, ri.id, "gemini");
    throw e;
  }
}

function decodeModel(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new CoreError(400, "invalid_request", "The model in the path is not valid percent-encoding", { details: { parameter: "model", provided: raw, expected: "a model name" } });
  }
}

/** The request's headers, with a `?key=` as the header Google's key is read from (never in a URL Relay sends). */
function withQueryKey(h: Headers, query: URLSearchParams): Headers {
  const key = query.get("key");
  if (!key || h.has(KEY_HEADER)) return h;
  const copy = new Headers(h);
  copy.set(KEY_HEADER, key);
  return copy;
}

/** A stream answer reframed as Google's JSON array (`[{…},\r\n{…}]`), its elements sent as they come; errors pass as they are. */
function asJsonArray(res: Response): Response {
  if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json; charset=UTF-8");
  return new Response(res.body.pipeThrough(new TransformStream(new JsonArrayFramer())), { status: res.status, headers });
}

class JsonArrayFramer implements Transformer<Uint8Array, Uint8Array> {
  private readonly parser = new SseParser();
  private readonly encoder = new TextEncoder();
  private opened = false;

  transform(chunk: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>): void {
    this.emit(this.parser.push(chunk), "", controller);
  }

  flush(controller: TransformStreamDefaultController<Uint8Array>): void {
    this.emit(this.parser.end(), this.opened ? "]" : "[]", controller);
  }

  private emit(events: Array<{ data: string }>, tail: string, controller: TransformStreamDefaultController<Uint8Array>): void {
    let out = "";
    for (const ev of events) {
      out += this.opened ? `,\r\n${ev.data}` : `[${ev.data}`;
      this.opened = true;
    }
    out += tail;
    if (out) controller.enqueue(this.encoder.encode(out));
  }
}

/**
 * countTokens: Google's own count when Google serves the model and a key exists (the body passed
 * through untouched), else Relay's estimate. The body is `{contents}` or `{generateContentRequest}`.
 */
async function countTokens(relay: Relay, request: Request, name: string, headers: Headers): Promise<Response> {
  const ri = requestInfo(request);
  try {
    if (relay.loop.looped(headers)) throw relay.loop.refuse(request.url, "gemini", relay.registry.providers.values(), relay.config(), relay.env);
    const rawBody = await readBody(request, relay.config().server.bodyLimitBytes);
    const body = parseJsonObject(rawBody);
    checkWireNames({ ...body, model: name });
    const model = relay.catalog.resolve(name);
    if (!model) throw modelNotFound(relay, name);
    const provider = relay.registry.providers.get(model.provider);
    const key = provider && countKey(relay, provider, "gemini", headers);
    if (provider?.countTokens && provider.format === "gemini" && key) return await vendorCount(relay, request, provider, model.id, key, rawBody);
    const ir = geminiCodec.decodeRequest(isRecord(body.generateContentRequest) ? body.generateContentRequest : body);
    return json({ totalTokens: estimateTokensFor(ir, model.provider) }, 200, { "x-svc-token-count": "estimate", "x-svc-request-id": ri.id });
  } catch (e) {
    const err = clientInputError(e);
    if (err) return errorResponse(err, ri.id, "gemini");
    return errorResponse(new CoreError(502, "provider_error", `Provider error: ${describeVendorFailure("google", e)}`), ri.id, "gemini");
  }
}
