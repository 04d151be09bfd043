// The dashboard at / and /dashboard: server-rendered pages, their embedded
// assets, and the guarded JSON endpoints the page polls. Actions are not
// here: the page calls the same /control/* endpoints as the API.
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { adminGuard } from "../admin-auth.ts";
import { toErrorResponse } from "../app.ts";
import { CoreError } from "../../core/errors.ts";
import { ASSETS } from "./assets.ts";
import { live, run, runs, series, summary } from "./data.ts";
import { loginSurface } from "./login.tsx";
import { OverviewPage, SettingsPage } from "./pages.tsx";
import { rangeParam } from "./ranges.ts";
import { guarded, jsonWithEtag, secure, withEtag } from "../respond.ts";
import * as docs from "../openapi/dashboard.ts";

const HTML = "text/html; charset=utf-8";

const page = (markup: JSX.Element) => async () => secure(new Response(`<!doctype html>${await markup}`, { headers: { "content-type": HTML } }));

export function dashboardSurface(relay: Relay) {
  const guard = adminGuard(() => relay.config());
  const overview = page(OverviewPage());
  const settings = page(SettingsPage());

  // Pages and assets hold no data and are open, because a browser navigation
  // cannot send the bearer token; every data endpoint below is admin-only.
  const open = new Elysia({ name: "dashboard-pages" })
    .get("/", overview, { detail: docs.overview })
    .get("/dashboard", overview, { detail: docs.overview })
    .get("/dashboard/settings", settings, { detail: docs.settings })
    .get("/dashboard/assets/:name", ({ params, request }) =>
      guarded(request, relay.log, () => {
        const a = ASSETS[params.name];
        if (!a) throw new CoreError(404, "not_found", `No dashboard asset ${params.name}`);
        return withEtag(request, a.text, a.contentType, a.etag);
      }),
    { detail: docs.asset(ASSETS) });

  const api = new Elysia({ name: "dashboard-api" })
    .onBeforeHandle({ as: "local" }, ({ request }) => {
      try {
        guard({ request });
      } catch (e) {
        // Refusals carry the dashboard's security headers like every other answer.
        return secure(toErrorResponse(e, request, relay.log));
      }
    })
    .get("/dashboard/api/summary", ({ request }) =>
      guarded(request, relay.log, async () => jsonWithEtag(request, await summary(relay, rangeParam(new URL(request.url))))),
    { detail: docs.summary })
    .get("/dashboard/api/series", ({ request }) =>
      guarded(request, relay.log, async () => jsonWithEtag(request, await series(relay, rangeParam(new URL(request.url))))),
    { detail: docs.series })
    .get("/dashboard/api/runs", ({ request }) => guarded(request, relay.log, async () => jsonWithEtag(request, await runs(relay, new URL(request.url)))), { detail: docs.runs })
    .get("/dashboard/api/runs/:id", ({ params, request }) => guarded(request, relay.log, async () => jsonWithEtag(request, await run(relay, params.id))), { detail: docs.run })
    .get("/dashboard/api/live", ({ request }) => guarded(request, relay.log, async () => jsonWithEtag(request, await live(relay))), { detail: docs.live });

  return new Elysia({ name: "dashboard" }).use(open).use(loginSurface(relay)).use(api);
}
