// The team console on the `relay cloud` listener (issue 37 item 7): server-rendered pages on the
// dashboard's stack, their embedded assets, the sign-in with an API key and the JSON endpoints the
// pages call. Every answer carries the dashboard's security headers (CSP: nothing but this origin).
import { Elysia } from "elysia";
import { CoreError } from "../../../core/errors.ts";
import type { Relay } from "../../../relay.ts";
import * as docs from "../../openapi/cloud-console.ts";
import { guarded, secure, withEtag } from "../../respond.ts";
import { consoleApi } from "./api.ts";
import { CONSOLE_ASSETS } from "./assets.ts";
import { AgentsPage, KeysPage, LogPage, LoginPage, RunsPage, UsagePage } from "./pages.tsx";
import { signIn, signOut, signedIn } from "./session.ts";

const htmlOf = async (markup: JSX.Element) => `<!doctype html>${await markup}`;

const html = (text: string) => secure(new Response(text, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } }));

const redirect = (to: string) => secure(new Response(null, { status: 303, headers: { location: to, "cache-control": "no-store" } }));

export function consoleSurface(relay: Relay) {
  const pages = { usage: htmlOf(UsagePage()), logs: htmlOf(LogPage()), runs: htmlOf(RunsPage()), agents: htmlOf(AgentsPage()), keys: htmlOf(KeysPage()), login: htmlOf(LoginPage()) };
  // A page holds no data; a browser without a session is sent to the sign-in page instead.
  const page = (markup: Promise<string>) => ({ request }: { request: Request }) =>
    guarded(request, relay.log, async () => ((await signedIn(relay, request)) ? html(await markup) : redirect("/console/login")));

  const open = new Elysia({ name: "console-pages" })
    .get("/console", page(pages.usage), { detail: docs.page("usage") })
    .get("/console/logs", page(pages.logs), { detail: docs.page("request log") })
    .get("/console/runs", page(pages.runs), { detail: docs.page("workflow runs") })
    .get("/console/agents", page(pages.agents), { detail: docs.page("agents") })
    .get("/console/keys", page(pages.keys), { detail: docs.page("API keys") })
    .get("/console/login", async () => html(await pages.login), { detail: docs.loginPage })
    .post("/console/login", ({ request }) => guarded(request, relay.log, () => signIn(relay, request)).then(secure), { parse: "none", detail: docs.login })
    .post("/console/logout", ({ request }) => guarded(request, relay.log, () => signOut(relay, request)).then(secure), { parse: "none", detail: docs.logout })
    .get("/console/assets/:name", ({ params, request }) =>
      guarded(request, relay.log, () => {
        const a = CONSOLE_ASSETS[params.name];
        if (!a) throw new CoreError(404, "not_found", `No console asset ${params.name}`);
        return withEtag(request, a.text, a.contentType, a.etag);
      }),
    { detail: docs.asset(CONSOLE_ASSETS) });

  return new Elysia({ name: "console" }).use(open).use(consoleApi(relay));
}
