// The console's JSON endpoints (/console/api/…), signed in by the session cookie (session.ts) and
// counted against the team's plan rate like every hosted route (cloud/auth.ts `admit`). They answer
// what the hosted API answers (the same handlers for keys and workflow runs), with two differences of the console:
// the request log is viewable on every plan (spec §8), and its export is gated by the plan.
import { Elysia } from "elysia";
import { CoreError } from "../../../core/errors.ts";
import { teamLog, teamLogs, teamUsage } from "../../../core/tenancy/request-log.ts";
import { DAY_MS } from "../../../core/tenancy/retention.ts";
import type { Relay } from "../../../relay.ts";
import { CORE, READ, admit, type HostedHandler } from "../auth.ts";
import { discover } from "../agents.ts";
import { keyHandlers } from "../keys.ts";
import { logFilterOf, windowOf } from "../log-query.ts";
import { logHandlers } from "../logs.ts";
import { handlers as workflowHandlers } from "../workflows.ts";
import { json } from "../../http.ts";
import * as docs from "../../openapi/cloud-console.ts";
import { guarded as secured } from "../../respond.ts";
import { requireOwnPage, sessionAuth, whoami } from "./session.ts";
import type { KeyType } from "../../../store/keys/types.ts";

/** An Elysia handler serving `handler` to a signed-in console page whose key type `accepts` lists. */
function consoleRoute(relay: Relay, accepts: readonly KeyType[], handler: HostedHandler) {
  return ({ request, params }: { request: Request; params: Record<string, string> }) =>
    secured(request, relay.log, async () => {
      requireOwnPage(request, request.method !== "GET");
      const auth = await sessionAuth(relay, request);
      const headers = await admit(relay, auth, accepts);
      const res = await handler(request, auth, params);
      for (const name in headers) res.headers.set(name, headers[name]!);
      res.headers.set("cache-control", "no-store");
      return res;
    });
}

/** The console's usage cards over since..until (default: the last day up to now), on every plan (the usage API is pro's). */
const usage: (relay: Relay) => HostedHandler = (relay) => async (request, auth) => {
  const w = windowOf(new URL(request.url).searchParams);
  // Runs are stamped with the wall clock as they arrive, so the window ends at the wall clock's now.
  const until = w.until ?? Date.now();
  const since = w.since ?? until - DAY_MS;
  return json(await teamUsage(relay.store.runs, auth.team.id, since, until));
};

/** The log and a request of it, on every plan (spec §8: "viewable in the console on every plan"). */
const logs: (relay: Relay) => HostedHandler = (relay) => async (request, auth) => {
  const filter = logFilterOf(new URL(request.url));
  const page = await teamLogs(relay.store.runs, auth.team.id, filter);
  return json({ data: page.data, total: page.total, limit: filter.limit, offset: filter.offset });
};

const log: (relay: Relay) => HostedHandler = (relay) => async (_, auth, params) => {
  const record = await teamLog(relay.store.runs, auth.team.id, params.id!);
  if (!record) throw new CoreError(404, "not_found", `no request ${params.id} in this team's log`);
  return json(record);
};

export function consoleApi(relay: Relay) {
  const route = (accepts: readonly KeyType[], handler: HostedHandler) => consoleRoute(relay, accepts, handler);
  const keys = keyHandlers(relay);
  const workflows = workflowHandlers(relay);
  return new Elysia({ name: "console-api" })
    .get("/console/api/me", route(READ, async (_, auth) => json(whoami(auth))), { detail: docs.me })
    .get("/console/api/usage", route(READ, usage(relay)), { detail: docs.usage })
    .get("/console/api/logs", route(READ, logs(relay)), { detail: docs.logs })
    .get("/console/api/logs/export", route(READ, logHandlers(relay).export), { detail: docs.exportLogs })
    .get("/console/api/logs/:id", route(READ, log(relay)), { detail: docs.log })
    .get("/console/api/runs", route(READ, workflows.runs), { detail: docs.runs })
    .get("/console/api/runs/:runId", route(READ, workflows.debugRun), { detail: docs.run })
    .get("/console/api/agents", route(READ, discover(relay)), { detail: docs.agents })
    .get("/console/api/keys", route(READ, keys.list), { detail: docs.listKeys })
    .post("/console/api/keys", route(CORE, keys.create), { parse: "none", detail: docs.createKey })
    .post("/console/api/keys/:id/rotate", route(CORE, keys.rotate), { parse: "none", detail: docs.rotateKey })
    .delete("/console/api/keys/:id", route(CORE, keys.revoke), { parse: "none", detail: docs.revokeKey });
}
