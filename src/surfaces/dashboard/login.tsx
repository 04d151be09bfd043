/** @jsxImportSource @kitajs/html */
// Signing a browser in to the dashboard: the page (its script reads the token
// from the link's fragment) and the endpoint that trades the token for this
// listener's session cookie. Open routes: the token itself is the credential.
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { adminTokenFor, sessionCookie, tokenMatches } from "../admin-auth.ts";
import { requestInfo } from "../app.ts";
import { readBody } from "../body.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { CoreError } from "../../core/errors.ts";
import { guarded, secure } from "../respond.ts";
import { ASSET_PATHS } from "./assets.ts";
import { PageHead } from "./layout.tsx";
import * as docs from "../openapi/dashboard.ts";

function LoginPage() {
  return (
    <html lang="en">
      <PageHead title="Sign in" scripts={[ASSET_PATHS.loginJs]} />
      <body data-page="login">
        <main id="main">
          <section class="panel login" aria-labelledby="login-title">
            <h1 id="login-title">Sign in to Relay</h1>
            <p>
              Run <code>relay dashboard</code> on this machine and open the link it prints, or paste the admin token (<code>RELAY_ADMIN_TOKEN</code>, else
              the file <code>$RELAY_HOME/admin-token</code>).
            </p>
            <form id="login-form">
              <label for="login-token">Admin token</label>
              <input id="login-token" type="password" autocomplete="off" spellcheck="false" required />
              <button type="submit" class="btn primary">Sign in</button>
            </form>
            <p id="login-error" class="notice bad" role="alert" hidden></p>
          </section>
        </main>
      </body>
    </html>
  );
}

async function login(relay: Relay, request: Request): Promise<Response> {
  const body = parseJsonObject(await readBody(request, 4096));
  const token = adminTokenFor(request, relay.config().adminToken);
  const access = requestInfo(request).access;
  if (typeof body.token !== "string" || token === undefined || access === undefined || !tokenMatches(body.token.trim(), token)) {
    throw new CoreError(401, "unauthorized", "That is not this Relay's admin token; run `relay dashboard` for a fresh sign-in link", {
      details: { parameter: "token", expected: "the admin token" },
    });
  }
  relay.log.info("dashboard signed in", { port: access.port });
  return secure(new Response(null, { status: 204, headers: { "set-cookie": sessionCookie(token, access.port), "cache-control": "no-store" } }));
}

export function loginSurface(relay: Relay) {
  const page = async () => secure(new Response(`<!doctype html>${await LoginPage()}`, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } }));
  return new Elysia({ name: "dashboard-login" })
    .get("/dashboard/login", page, { detail: docs.loginPage })
    .post("/dashboard/login", ({ request }) => guarded(request, relay.log, () => login(relay, request)), { parse: "none", detail: docs.login });
}
