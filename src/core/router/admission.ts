// The checks a call passes before any plan: the loop guard, its body, its session, its decoding to
// the IR and the client's own credential. What passes becomes a Run.
import { CoreError } from "../errors.ts";
import { codecFor } from "../formats/index.ts";
import type { ChatRequest } from "../ir.ts";
import { admitClientCredential } from "./client-credential.ts";
import type { RouterDeps } from "./deps.ts";
import { newRequestId } from "../ids.ts";
import type { Call, RouteCall } from "./call.ts";
import { Run } from "./run.ts";
import { checkWireNames, clientInputError } from "./validate.ts";

const missingModel = (provided: unknown) =>
  new CoreError(400, "invalid_request", "Missing model in request", { details: { parameter: "model", provided, expected: "string" } });

/** The model and, in the formats with `messages`, that array; other formats' turns are their codecs' to check (Gemini's `contents`). */
export function validateChatBody(body: Record<string, unknown>, format: Call["format"] = "openai"): void {
  if (typeof body.model !== "string" || body.model.trim() === "") throw missingModel(body.model);
  if ((format === "openai" || format === "anthropic") && !Array.isArray(body.messages))
    throw new CoreError(400, "invalid_request", "Missing or invalid messages array in request", {
      details: { parameter: "messages", provided: typeof body.messages, expected: "array" },
    });
  checkWireNames(body);
}

/** The checks that need no plan: the loop guard, body, session, the request's decoding, the client's own credential. */
export function admit(deps: RouterDeps, routeCall: RouteCall): Run {
  const call = callOf(routeCall);
  const headers = call.headers;
  if (deps.loop.looped(headers)) throw deps.loop.refuse(call.caller.url, call.format, deps.registry.providers.values(), deps.config(), deps.env);
  const body = call.body;
  if (body) validateChatBody(body, call.format);
  else if (typeof routeCall.request!.model !== "string" || routeCall.request!.model.trim() === "") throw missingModel(routeCall.request!.model);
  const sessionKey = call.caller.session;
  if (deps.control.isRefused(sessionKey))
    throw new CoreError(403, "session_killed", "This session was ended by an administrator (POST /control/enable resumes)");
  const ir = body ? decode(call.format, body) : routeCall.request!;
  const requestedModel = body ? (body.model as string) : ir.model;
  const client = admitClientCredential(deps, call.format, headers, call.caller.credentials);
  return new Run(deps, call, ir, requestedModel, sessionKey, call.caller.metadata ?? {}, client);
}

function decode(format: Call["format"], body: Record<string, unknown>): ChatRequest {
  try {
    return codecFor(format).decodeRequest(body);
  } catch (e) {
    throw clientInputError(e) ?? e;
  }
}

/** The call with its defaults filled in. */
function callOf(c: RouteCall): Call {
  const at = c.at ?? Date.now();
  return {
    id: c.id ?? newRequestId(at),
    start: c.start ?? performance.now(),
    at,
    format: c.format,
    caller: c.caller,
    headers: c.caller.headers ?? new Headers(),
    signal: c.signal,
    nativeOnly: c.nativeOnly,
    body: c.body,
    rawBody: c.rawBody,
  };
}
