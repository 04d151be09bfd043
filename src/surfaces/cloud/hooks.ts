// Webhook trigger paths of deployed workflows on the cloud listener (spec §2.10, §4.4):
// `/hooks/<team id>/<endpoint path>`, POST or PUT as the trigger says (src/core/workflows/cloud/triggers.ts).
// Not behind the API-key guard: a trigger's own headers and signature admit its callers. It answers
// 202 with the queued run at once; the durable runner goes on with it in the background. Refusals are
// the hosted error object, rendered here because a trigger path is the user's and may contain words
// (`/models`, `/chat/completions`) that select a vendor's error shape elsewhere. The listener's
// browser guard applies first: a server-to-server call (no Origin header) passes it with a JSON
// content type; a web page of another origin is refused (docs/hosted-api.md "Triggers").
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { deliver } from "../../core/workflows/cloud/triggers.ts";
import { runView } from "../../core/workflows/cloud/views.ts";
import type { Relay } from "../../relay.ts";
import { requestInfo } from "../app.ts";
import { errorResponse, json } from "../http.ts";
import * as docs from "../openapi/cloud-hooks.ts";
import { hostedText } from "./errors.ts";

/** The largest trigger body: the run's input. */
const BODY_LIMIT = 1024 * 1024;
export const HOOKS_PATH = "/hooks";

/** `{hooks_url}`: the configured public URL, else the origin the request came in on, + /hooks. */
export function hooksUrl(relay: Relay, request: Request): string {
  return `${(relay.config().cloud.publicUrl ?? new URL(request.url).origin).replace(/\/+$/, "")}${HOOKS_PATH}`;
}

export function hookRoutes(relay: Relay) {
  const handle = async ({ request, params }: { request: Request; params: Record<string, string> }): Promise<Response> => {
    try {
      const body = await hostedText(request, BODY_LIMIT);
      const run = await deliver(relay, params.team!, params["*"]!.replace(/\/+$/, ""), { method: request.method, headers: request.headers, body });
      return json({ run: runView(run) }, 202);
    } catch (e) {
      if (!(e instanceof CoreError)) throw e;
      return errorResponse(e, requestInfo(request).id, "spec");
    }
  };
  return new Elysia({ name: "cloud-hooks" })
    .post(`${HOOKS_PATH}/:team/*`, handle, { parse: "none", detail: docs.trigger("POST") })
    .put(`${HOOKS_PATH}/:team/*`, handle, { parse: "none", detail: docs.trigger("PUT") });
}
