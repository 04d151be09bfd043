// The checks a request passes before any plan: its body, the loop guard, its session and metadata,
// its decoding to the IR and the client's own credential. What passes becomes a Run.
import { HttpError } from "../errors.ts";
import { codecFor } from "../formats/index.ts";
import type { ChatRequest } from "../ir.ts";
import { admitClientCredential } from "./client-credential.ts";
import type { RouterDeps } from "./deps.ts";
import { type ChatCall, Run } from "./run.ts";
import { checkWireNames, clientInputError } from "./validate.ts";

export function validateChatBody(body: Record<string, unknown>): void {
  if (typeof body.model !== "string" || body.model.trim() === "")
    throw new HttpError(400, "invalid_request", "Missing model in request", { details: { parameter: "model", provided: body.model, expected: "string" } });
  if (!Array.isArray(body.messages))
    throw new HttpError(400, "invalid_request", "Missing or invalid messages array in request", {
      details: { parameter: "messages", provided: typeof body.messages, expected: "array" },
    });
  checkWireNames(body);
}

export const sessionKeyOf = (h: Headers): string | undefined =>
  h.get("x-svc-session") ?? h.get("x-claude-code-session-id") ?? undefined;

function parseMetadata(h: Headers): Record<string, unknown> {
  const raw = h.get("x-svc-metadata");
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, "invalid_request", "x-svc-metadata must be a JSON object", { details: { parameter: "x-svc-metadata", expected: "JSON object" } });
}

/** The checks that need no plan: body, session, metadata, the request's decoding, the client's own credential. */
export function admit(deps: RouterDeps, call: ChatCall): Run {
  const headers = call.request.headers;
  if (deps.loop.looped(headers)) throw deps.loop.refuse(call.request.url, call.clientFormat, deps.registry.providers.values(), deps.config(), deps.env);
  validateChatBody(call.body);
  const requestedModel = call.body.model as string;
  const sessionKey = sessionKeyOf(headers);
  if (deps.control.isRefused(sessionKey))
    throw new HttpError(403, "session_killed", "This session was ended by an administrator (POST /control/enable resumes)");
  const metadata = parseMetadata(headers);

  let ir: ChatRequest;
  try {
    ir = codecFor(call.clientFormat).decodeRequest(call.body);
  } catch (e) {
    throw clientInputError(e) ?? e;
  }

  const client = admitClientCredential(deps, call.clientFormat, headers);
  return new Run(deps, call, ir, requestedModel, sessionKey, metadata, client);
}
