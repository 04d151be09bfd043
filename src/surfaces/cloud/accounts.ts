// Accounts over the cloud listener (issue 38 item 1; additions to spec §4.3 besides signup, me and
// status). Sign-up and sign-in are public (throttled: src/core/tenancy/accounts-throttle.ts, and
// sign-ups per minute) and answer an access token; me, status and members take an API key or an
// access token (the hosted guard); the routes about the signed-in user's own password, tokens and
// the team's people take an access token only (an API key is no user).
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { accountSettings, signIn, signUp, type Accounts, type Session } from "../../core/tenancy/accounts.ts";
import { createInvite, publicInvite } from "../../core/tenancy/accounts-invites.ts";
import { changePassword, removeMember, setMemberRole } from "../../core/tenancy/accounts-members.ts";
import { publicToken, publicUser, tokenAuthById } from "../../core/tenancy/accounts-tokens.ts";
import { publicKey } from "../../core/tenancy/api-keys.ts";
import { PLANS } from "../../core/tenancy/plans.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-accounts.ts";
import { CORE, READ, admit, authByAccessToken, bearerOf, guarded, userAuth, type HostedAuth } from "./auth.ts";
import { hostedJson } from "./errors.ts";

const BODY_LIMIT = 16 * 1024;
const NO_STORE = { "cache-control": "no-store" };

const accountsOf = (relay: Relay): Accounts => ({ store: relay.store, settings: accountSettings(relay.config().cloud.accounts), now: relay.clock.now() });

/** The console's sign-in with an email and password (console/session.ts): a token named "console". */
export async function passwordSignIn(relay: Relay, body: Record<string, unknown>): Promise<HostedAuth> {
  return userAuth(await signIn(accountsOf(relay), { ...body, token_name: "console" }));
}

/** A console session's user by its token's id; undefined once the token is revoked or expired, or its user gone. */
export async function tokenSession(relay: Relay, tokenId: string): Promise<HostedAuth | undefined> {
  try {
    return userAuth(await tokenAuthById(relay.store, tokenId, relay.clock.now()));
  } catch (e) {
    if (e instanceof CoreError) return undefined;
    throw e;
  }
}

const teamView = async (relay: Relay, auth: HostedAuth) => ({
  ...auth.team,
  cloud_enabled: (await relay.store.accounts.cloudEnabled(auth.team.id)) ?? false,
});

const session = (s: Session, status: number) =>
  json({ user: publicUser(s.user), team: { id: s.team.id, name: s.team.name, plan: s.team.plan }, token: publicToken(s.token), access_token: s.secret }, status, NO_STORE);

type UserAuth = HostedAuth & Required<Pick<HostedAuth, "user" | "token">>;
type UserHandler = (request: Request, auth: UserAuth, params: Record<string, string>) => Promise<Response>;

/** A route for signed-in users only: an access token, the role's key type, the plan's rate. */
function userGuarded(relay: Relay, accepts: typeof CORE, handler: UserHandler) {
  return async ({ request, params }: { request: Request; params: Record<string, string> }): Promise<Response> => {
    const bearer = bearerOf(request);
    if (!bearer) throw new CoreError(401, "missing_access_token", "sign in (POST /v1/accounts/signin) and send the access token as Authorization: Bearer");
    const auth = (await authByAccessToken(relay, bearer)) as UserAuth;
    const headers = await admit(relay, auth, accepts);
    const res = await handler(request, auth, params);
    for (const name in headers) res.headers.set(name, headers[name]!);
    return res;
  };
}

/** Sign-ups cost an argon2id hash each and are not failures the throttle counts: a cap per minute. */
async function admitSignup(relay: Relay): Promise<void> {
  const d = await relay.rate.acquire("accounts:signup", relay.config().cloud.accounts.signupsPerMinute);
  if (!d.allowed) throw new CoreError(429, "rate_limit_exceeded", "too many sign-ups this minute; try again shortly", { retryAfter: d.retryAfterSec });
}

/** Sign-up, sign-in, and what an API key or a token may read. */
function openRoutes(relay: Relay) {
  const signup = async (request: Request) => {
    const body = await hostedJson(request, BODY_LIMIT);
    await admitSignup(relay);
    return session(await signUp(accountsOf(relay), body), 201);
  };
  const me = async (_: Request, auth: HostedAuth) =>
    json({
      user: auth.user ? publicUser(auth.user) : null,
      team: await teamView(relay, auth),
      credential: auth.token ? { kind: "access_token", token: publicToken(auth.token), key_type: auth.key.type } : { kind: "api_key", key: publicKey(auth.key), key_type: auth.key.type },
    });
  return new Elysia({ name: "cloud-accounts-open" })
    .post("/v1/accounts/signup", ({ request }) => signup(request), { parse: "none", detail: docs.signup })
    .post("/v1/accounts/signin", async ({ request }) => session(await signIn(accountsOf(relay), await hostedJson(request, BODY_LIMIT)), 200), { parse: "none", detail: docs.signin })
    .get("/v1/accounts/me", guarded(relay, READ, me), { detail: docs.me })
    .get("/v1/accounts/status", guarded(relay, READ, async (_, auth) => json({ team: await teamView(relay, auth), plan: { name: auth.team.plan, ...PLANS[auth.team.plan] } })), { detail: docs.status })
    .get("/v1/accounts/members", guarded(relay, READ, async (_, auth) => json({ members: (await relay.store.accounts.listUsers(auth.team.id)).map(publicUser) })), { detail: docs.members });
}

/** The team's people, for its owner. */
function memberRoutes(relay: Relay) {
  const accounts = relay.store.accounts;
  return new Elysia({ name: "cloud-accounts-members" })
    .post(
      "/v1/accounts/invites",
      userGuarded(relay, CORE, async (request, auth) => {
        const { invite, secret } = await createInvite(accounts, auth.user, await hostedJson(request, BODY_LIMIT), relay.clock.now());
        return json({ invite: publicInvite(invite), invite_token: secret }, 201, NO_STORE);
      }),
      { parse: "none", detail: docs.invite },
    )
    .patch(
      "/v1/accounts/members/:id",
      userGuarded(relay, CORE, async (request, auth, params) => json({ member: publicUser(await setMemberRole(accounts, auth.user, params.id!, await hostedJson(request, BODY_LIMIT))) })),
      { parse: "none", detail: docs.setRole },
    )
    .delete("/v1/accounts/members/:id", userGuarded(relay, CORE, async (_, auth, params) => json({ removed: publicUser(await removeMember(accounts, auth.user, params.id!)) })), { parse: "none", detail: docs.removeMember });
}

/** The signed-in user's own password and tokens. */
function selfRoutes(relay: Relay) {
  const accounts = relay.store.accounts;
  const at = () => new Date(relay.clock.now()).toISOString();
  const revokeOne = async (_: Request, auth: UserAuth, params: Record<string, string>) => {
    const token = await accounts.getToken(params.id!);
    // Another user's tokens are as unknown as missing ones.
    if (!token || token.user_id !== auth.user.id) throw new CoreError(404, "not_found", `no token ${params.id} of this user`);
    await accounts.revokeToken(token.id, at());
    return json({ token: publicToken((await accounts.getToken(token.id)) ?? token) });
  };
  const revokeAll = async (_: Request, auth: UserAuth) => {
    const live = await accounts.liveTokens(auth.user.id, relay.clock.now());
    await accounts.revokeUserTokens(auth.user.id, at());
    return json({ revoked: live.map((t) => t.id) });
  };
  const signout = async (_: Request, auth: UserAuth) => {
    await accounts.revokeToken(auth.token.id, at());
    return json({ revoked: [auth.token.id] });
  };
  const password = async (request: Request, auth: UserAuth) => json({ revoked: await changePassword(accountsOf(relay), auth.user, auth.token.id, await hostedJson(request, BODY_LIMIT)) });
  return new Elysia({ name: "cloud-accounts-self" })
    .post("/v1/accounts/password", userGuarded(relay, READ, password), { parse: "none", detail: docs.changePassword })
    .get("/v1/accounts/tokens", userGuarded(relay, READ, async (_, auth) => json({ tokens: (await accounts.liveTokens(auth.user.id, relay.clock.now())).map(publicToken) })), { detail: docs.listTokens })
    .post("/v1/accounts/signout", userGuarded(relay, READ, signout), { parse: "none", detail: docs.signout })
    .delete("/v1/accounts/tokens/:id", userGuarded(relay, READ, revokeOne), { parse: "none", detail: docs.revokeToken })
    .delete("/v1/accounts/tokens", userGuarded(relay, READ, revokeAll), { parse: "none", detail: docs.revokeAllTokens });
}

export function accountRoutes(relay: Relay) {
  return new Elysia({ name: "cloud-accounts" }).use(openRoutes(relay)).use(memberRoutes(relay)).use(selfRoutes(relay));
}
