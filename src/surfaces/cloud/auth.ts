// The hosted API's guard (spec §5.1–5.2, §8): every /api/* route of `relay cloud` but
// GET /api/health is registered through `guarded`, which
//   1. reads `x-api-key`, else a signed-in user's access token (`Authorization: Bearer rat_…`,
//      src/core/tenancy/accounts-tokens.ts), which stands for a key of the role's type (owner and
//      member: standard; read_only: read-only): missing, unknown, expired or revoked → 401;
//   2. checks the key's type against the route's `accepts`: a read-only key on a core route → 403;
//   3. counts the request against the team's plan (PLANS' requestsPerMinute, one sliding minute per
//      team, the limiter of src/core/limits/rate-limit.ts) → 429 with Retry-After when over;
//   4. hands the team and key to the route as an argument, and puts the rate-limit headers on its answer.
// Keys are read from the store on every request, never cached, so a revocation holds at once.
// Rate-limit headers (on every guarded answer, 429s included): x-ratelimit-limit (the plan's
// requests per minute), x-ratelimit-remaining, x-ratelimit-reset (seconds until the whole limit is
// free again).
import { CoreError } from "../../core/errors.ts";
import type { RateDecision } from "../../core/limits/rate-limit.ts";
import { hashKey } from "../../core/tenancy/api-keys.ts";
import { PLANS } from "../../core/tenancy/plans.ts";
import { emitHostedEvent } from "../../core/webhooks/emit.ts";
import type { Relay } from "../../relay.ts";
import type { ApiKey, KeyType } from "../../store/keys/types.ts";
import type { Team } from "../../store/teams/types.ts";
import type { AccessToken, User } from "../../store/users/types.ts";
import { tokenAuth, type TokenAuth } from "../../core/tenancy/accounts-tokens.ts";

export interface HostedAuth {
  team: Team;
  /** The API key, or for an access token the key it stands for (id: the token's `tok_…`). */
  key: ApiKey;
  /** Set when a user's access token authenticated. */
  user?: User;
  token?: AccessToken;
}

/** The key types a route accepts: core routes (relay, register, discover, key management) take standard keys only. */
export const CORE: readonly KeyType[] = ["standard"];
/** Health, usage analytics and log viewing: read-only keys too. */
export const READ: readonly KeyType[] = ["standard", "read_only"];


/** `params`: the route's path parameters, decoded. */
export type HostedHandler = (request: Request, auth: HostedAuth, params: Record<string, string>) => Response | Promise<Response>;

/** An Elysia handler that serves `handler` to requests passing the guard. */
export function guarded(relay: Relay, accepts: readonly KeyType[], handler: HostedHandler) {
  return async ({ request, params }: { request: Request; params: Record<string, string> }): Promise<Response> => {
    const auth = await authenticate(relay, request);
    const headers = await admit(relay, auth, accepts);
    const res = await handler(request, auth, params);
    for (const name in headers) res.headers.set(name, headers[name]!);
    return res;
  };
}

/**
 * Steps 2 and 3 for an authenticated team and key (the console's sessions too): 403 for a key type
 * `accepts` lacks, 429 over the plan's rate; else the rate-limit headers for the answer.
 */
export async function admit(relay: Relay, auth: HostedAuth, accepts: readonly KeyType[]): Promise<Record<string, string>> {
  if (!accepts.includes(auth.key.type)) {
    throw new CoreError(403, "permission_denied", `a ${auth.key.type.replace("_", "-")} key cannot use this route; it needs a ${accepts.join(" or ")} key`);
  }
  const limit = PLANS[auth.team.plan].requestsPerMinute;
  const decision = await relay.rate.acquire(`team:${auth.team.id}`, limit);
  const headers = rateHeaders(decision);
  if (!decision.allowed) {
    emitHostedEvent(relay, auth.team, "limit.rate_exceeded", () => ({ plan: auth.team.plan, limit_per_minute: limit, retry_after_sec: decision.retryAfterSec }));
    throw new CoreError(429, "rate_limit_exceeded", `the ${auth.team.plan} plan allows ${limit} requests per minute`, { retryAfter: decision.retryAfterSec, headers });
  }
  return headers;
}

async function authenticate(relay: Relay, request: Request): Promise<HostedAuth> {
  const secret = request.headers.get("x-api-key");
  if (secret) return authByKey(relay, secret);
  const bearer = bearerOf(request);
  if (bearer) return authByAccessToken(relay, bearer);
  throw new CoreError(401, "missing_api_key", "send your API key in the x-api-key header, or a signed-in user's access token as Authorization: Bearer");
}

/** The secret of `Authorization: Bearer …`, if the request carries one. */
export const bearerOf = (request: Request): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];

/** The team, user and token of an access token's secret, with the key type of the user's role. */
export async function authByAccessToken(relay: Relay, secret: string): Promise<HostedAuth> {
  return userAuth(await tokenAuth(relay.store, secret, relay.clock.now()));
}

/** A user's token as the guard's auth: the key it stands for has the token's id and the role's type. */
export function userAuth({ team, user, token }: TokenAuth): HostedAuth {
  const type: KeyType = user.role === "read_only" ? "read_only" : "standard";
  const key: ApiKey = { id: token.id, team_id: team.id, type, name: `access token of ${user.email}`, prefix: token.prefix, hash: token.hash, created_at: token.created_at, revoked_at: null };
  return { team, key, user, token };
}

/** The team and key of an API key's secret: 401 when unknown, revoked or of a team that is gone. */
export async function authByKey(relay: Relay, secret: string): Promise<HostedAuth> {
  const found = await relay.store.apiKeys.keyAndTeamByHash(hashKey(secret));
  if (!found) throw new CoreError(401, "invalid_api_key", "the API key is not valid");
  const { key, team } = found;
  if (key.revoked_at !== null) throw new CoreError(401, "invalid_api_key", "the API key was revoked");
  if (!team) throw new CoreError(401, "invalid_api_key", "the API key's team no longer exists");
  return { team, key };
}

function rateHeaders(d: RateDecision): Record<string, string> {
  return { "x-ratelimit-limit": String(d.limit), "x-ratelimit-remaining": String(d.remaining), "x-ratelimit-reset": String(d.resetSec) };
}
