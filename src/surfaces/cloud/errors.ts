// The hosted API's own refusals beyond the guard's: an unknown /api route (404) and an oversized
// body (413, where the proxy's spec answers 500). Every one is the spec's error object (§2.6), with
// the request's `req_…` id in the body and in the x-svc-request-id header (src/surfaces/app.ts).
import { CoreError } from "../../core/errors.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { readCapped } from "../../core/read-capped.ts";
import { requestInfo } from "../app.ts";
import { errorResponse } from "../http.ts";

const tooLarge = (limit: number) => () => new CoreError(413, "request_too_large", `request body over the ${limit}-byte limit`);

/** The request's body text, read up to `limit` bytes. */
export const hostedText = (request: Request, limit: number): Promise<string> => readCapped(request, limit, tooLarge(limit));

/** `text` as a JSON object (an empty body is `{}`); 400 when it is not one. */
export const jsonObjectOf = (text: string): Record<string, unknown> => (text === "" ? {} : parseJsonObject(text));

/** The request's JSON object body, read up to `limit` bytes. */
export async function hostedJson(request: Request, limit: number): Promise<Record<string, unknown>> {
  return jsonObjectOf(await hostedText(request, limit));
}

/** The cloud listener's answer to a path no route serves (createApp's `fallback`). */
export function unknownRoute(request: Request, path = new URL(request.url).pathname): Response {
  // A workflow trigger path (./hooks.ts) takes POST or PUT; another method on one is a 405.
  if (path.startsWith("/hooks/")) return errorResponse(new CoreError(405, "method_not_allowed", "a workflow trigger takes POST or PUT", { headers: { allow: "POST, PUT" } }), requestInfo(request).id, "spec");
  const err = new CoreError(404, "not_found", "Unknown route. The hosted API's routes are listed at /openapi.json");
  return errorResponse(err, requestInfo(request).id, "spec");
}
