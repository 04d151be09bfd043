// The console's sign-in (spec §5.1, issue 37 item 7). A browser trades an API key, once, for a random
// session token in an HttpOnly, SameSite=Strict cookie scoped to /console (Secure over https): the
// key never stays in the browser, and the store keeps only the token's hash, the team, the key's id
// and an expiry. Every console request re-reads the session's key and team, so a revoked key or a
// deleted team ends its sessions at once; signing out deletes the session. A user may sign in with
// their email and password instead (accounts.ts): the session then keeps the id of an access token
// made for it, re-checked the same way, and signing out revokes that token.
//
// A browser is the attacker's tool here too: besides the listener's guard (Host, Origin, JSON POSTs;
// browser-guard.ts), console requests must come from the console's own pages: a foreign Origin or a
// cross-site Sec-Fetch-Site is refused, and a state-changing request must name its Origin.
import { CoreError } from "../../../core/errors.ts";
import { secretToken } from "../../../core/ids.ts";
import { hashKey, publicKey } from "../../../core/tenancy/api-keys.ts";
import { PLANS, plansWith } from "../../../core/tenancy/plans.ts";
import type { Relay } from "../../../relay.ts";
import { cookie } from "../../admin-auth.ts";
import { requestInfo } from "../../app.ts";
import { hostEnd } from "../../browser-guard.ts";
import { authByKey, type HostedAuth } from "../auth.ts";
import { hostedJson } from "../errors.ts";
import { passwordSignIn, tokenSession } from "../accounts.ts";
import { json } from "../../http.ts";

export const SESSION_MS = 12 * 60 * 60 * 1000;
const LOGIN_BODY_LIMIT = 4096;

/** Per listener port, like the dashboard's, so two listeners on one host keep their own sessions. */
const cookieName = (request: Request): string => `relay_console_${requestInfo(request).access?.port ?? 0}`;

const cookieOf = (request: Request): string | undefined => cookie(request, cookieName(request)) || undefined;

/** Secure when the browser reached us over https (directly, or through a TLS-terminating proxy that says so). */
const isHttps = (request: Request): boolean => request.url.startsWith("https:") || request.headers.get("x-forwarded-proto") === "https";

function setCookie(request: Request, value: string, maxAgeSec: number): string {
  return `${cookieName(request)}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSec}${isHttps(request) ? "; Secure" : ""}`;
}

const foreign = (what: string) => new CoreError(403, "forbidden_origin", `${what}: the console answers its own pages only`);

/**
 * Refuses requests not made by the console's own pages (a GET may also be the user's own navigation,
 * Sec-Fetch-Site "none"); `mutation`: the Origin must be present.
 */
export function requireOwnPage(request: Request, mutation: boolean): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && (mutation || site !== "none")) throw foreign(`a ${site} request`);
  const origin = request.headers.get("origin");
  if (origin === null) {
    if (mutation) throw foreign("a request without an Origin header");
    return;
  }
  const end = hostEnd(request.url);
  if (end === -1 || origin !== request.url.slice(0, end)) throw foreign(`a request from ${origin.slice(0, 100)}`);
}

/** The signed-in team and key of a console request: 401 without a live session of a valid key. */
export async function sessionAuth(relay: Relay, request: Request): Promise<HostedAuth> {
  const token = cookieOf(request);
  if (token === undefined) throw new CoreError(401, "session_required", "sign in to the console at /console/login");
  const sessions = relay.store.consoleSessions;
  const hash = hashKey(token);
  const session = await sessions.getSession(hash);
  if (!session || session.expires_at <= relay.clock.now()) throw new CoreError(401, "session_expired", "the console session ended; sign in again");
  // Signed in with an email and password: the session holds the user's access token's id.
  if (session.key_id.startsWith("tok_")) {
    const auth = await tokenSession(relay, session.key_id);
    if (auth) return auth;
    await sessions.deleteSession(hash);
    throw new CoreError(401, "session_expired", "the access token of this session was revoked or expired; sign in again");
  }
  const key = await relay.store.apiKeys.getKey(session.key_id);
  const team = key && key.revoked_at === null && key.team_id === session.team_id ? await relay.store.teams.getTeam(session.team_id) : undefined;
  if (!key || !team) {
    await sessions.deleteSession(hash);
    throw new CoreError(401, "session_expired", "the key this session signed in with was revoked; sign in with a valid key");
  }
  return { team, key };
}

/** Whether the request carries a live session (the pages' redirect to the sign-in page). */
export async function signedIn(relay: Relay, request: Request): Promise<boolean> {
  try {
    await sessionAuth(relay, request);
    return true;
  } catch (e) {
    if (e instanceof CoreError) return false;
    throw e;
  }
}

/** What the console shows about who is signed in. */
export const whoami = ({ team, key }: HostedAuth) => ({
  team: { id: team.id, name: team.name, plan: team.plan },
  key: publicKey(key),
  plan: PLANS[team.plan],
  /** Which plans export the log, for the export buttons of a plan without it. */
  export_plans: plansWith("export"),
});

/** POST /console/login `{ "api_key": "rk_live_…" }` or `{ "email", "password" }` (a user's account): a session cookie and who signed in. */
export async function signIn(relay: Relay, request: Request): Promise<Response> {
  requireOwnPage(request, true);
  const body = await hostedJson(request, LOGIN_BODY_LIMIT);
  const auth = body.email !== undefined ? await passwordSignIn(relay, body) : await keySignIn(relay, body);
  const now = relay.clock.now();
  // Sign-ins are rare: a good moment to forget sessions that ended.
  await relay.store.consoleSessions.deleteExpired(now);
  const token = secretToken(32);
  await relay.store.consoleSessions.insertSession({
    token_hash: hashKey(token),
    team_id: auth.team.id,
    key_id: auth.key.id,
    created_at: new Date(now).toISOString(),
    expires_at: now + SESSION_MS,
  });
  relay.log.info("console signed in", { team: auth.team.id, key: auth.key.id });
  return json(whoami(auth), 200, { "set-cookie": setCookie(request, token, SESSION_MS / 1000), "cache-control": "no-store" });
}

async function keySignIn(relay: Relay, body: Record<string, unknown>): Promise<HostedAuth> {
  if (typeof body.api_key !== "string" || body.api_key.trim() === "") {
    throw new CoreError(400, "invalid_request", "api_key must be your team's API key", { details: { parameter: "api_key", expected: "string" } });
  }
  return authByKey(relay, body.api_key.trim());
}

/** POST /console/logout: the session is deleted (and a password sign-in's token revoked), the cookie cleared. */
export async function signOut(relay: Relay, request: Request): Promise<Response> {
  requireOwnPage(request, true);
  const token = cookieOf(request);
  if (token !== undefined) {
    const session = await relay.store.consoleSessions.getSession(hashKey(token));
    if (session?.key_id.startsWith("tok_")) await relay.store.accounts.revokeToken(session.key_id, new Date(relay.clock.now()).toISOString());
    await relay.store.consoleSessions.deleteSession(hashKey(token));
  }
  return new Response(null, { status: 204, headers: { "set-cookie": setCookie(request, "", 0), "cache-control": "no-store" } });
}
