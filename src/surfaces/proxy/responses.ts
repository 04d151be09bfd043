// The proxy's Responses API routes: POST /v1/responses routes like chat completions (the same
// route(), as the "responses" call format) with its stored conversations (responses-turn.ts);
// GET and DELETE /v1/responses/{id} serve what was kept. Errors are OpenAI's shape.
import { CoreError } from "../../core/errors.ts";
import type { Relay } from "../../relay.ts";
import { requestInfo } from "../app.ts";
import { errorResponse, json } from "../http.ts";
import { chat } from "./chat.ts";
import { responsesTurn } from "./responses-turn.ts";

export const createResponse = (relay: Relay, request: Request): Promise<Response> => chat(relay, request, "responses", undefined, responsesTurn);

/** The stored response object, as the create call answered it. */
export async function retrieveResponse(relay: Relay, request: Request, id: string): Promise<Response> {
  const stored = await relay.store.responses.get(id);
  return stored ? json(stored.response) : notFound(request, id);
}

/** OpenAI's deletion object. */
export async function deleteResponse(relay: Relay, request: Request, id: string): Promise<Response> {
  return (await relay.store.responses.delete(id)) ? json({ id, object: "response", deleted: true }) : notFound(request, id);
}

function notFound(request: Request, id: string): Response {
  const err = new CoreError(404, "not_found", `Response with id '${id}' not found.`, { vendorType: "invalid_request_error" });
  return errorResponse(err, requestInfo(request).id, "openai");
}
