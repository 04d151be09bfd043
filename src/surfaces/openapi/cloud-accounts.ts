// OpenAPI operations of the account routes (src/surfaces/cloud/accounts.ts). Sign-up and sign-in are
// public; me, status and members take an API key or an access token (the hosted guard); the routes
// about the user's own tokens and invites take an access token only.
import { Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { guarded } from "./cloud-keys.ts";
import { ACCESS_TOKEN_SCHEME, type Operation, errorResponses, jsonRequestBody, jsonResponse, pathParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const Role = T.Union([T.Literal("owner"), T.Literal("member"), T.Literal("read_only")], {
  description: "owner: everything, and invites; member: as a standard key; read_only: as a read-only key (health, usage, logs)",
});
const Plan = T.Union([T.Literal("free"), T.Literal("maker"), T.Literal("pro")]);

const User = T.Object(
  { id: T.String({ pattern: "^usr_" }), team_id: T.String({ pattern: "^team_" }), email: T.String(), role: Role, created_at: Iso, password_reset_at: T.Union([Iso, T.Null()]) },
  { $id: "AccountUser", description: "A user: never the password or its hash." },
);

const Token = T.Object(
  {
    id: T.String({ pattern: "^tok_" }),
    user_id: T.String({ pattern: "^usr_" }),
    team_id: T.String({ pattern: "^team_" }),
    prefix: T.String({ description: "the token's first characters (rat_ and four more); not usable" }),
    name: T.String(),
    created_at: Iso,
    expires_at: Iso,
    revoked_at: T.Union([Iso, T.Null()]),
  },
  { $id: "AccessToken", description: "An access token as listed: never its secret." },
);

const Team = T.Object(
  { id: T.String({ pattern: "^team_" }), name: T.String(), plan: Plan, created_at: Iso, cloud_enabled: T.Boolean({ description: "whether Cloud features are on for the team" }) },
  { $id: "AccountTeam" },
);

const Session = T.Object(
  {
    user: User,
    team: T.Object({ id: T.String(), name: T.String(), plan: Plan }),
    token: Token,
    access_token: T.String({ pattern: "^rat_", description: "the secret, shown in this answer only; send it as Authorization: Bearer (the SDK's GlobalConfig.cloud.accessToken)" }),
  },
  { $id: "AccountSession" },
);

const Credentials = {
  email: T.String({ maxLength: 254, description: "trimmed and lower-cased" }),
  password: T.String({ minLength: 10, maxLength: 256 }),
  token_name: T.Optional(T.String({ maxLength: 200, description: "a name for the access token (a device, a job)" })),
};

const THROTTLED = "too many failed attempts for this email, or across all emails, in the current window (too_many_attempts); Retry-After says when to retry";

const open = (op: Operation, refusals: Record<number, string>): Operation => ({ tags: ["accounts"], security: [], ...op, responses: withHostedErrors(op.responses ?? {}, refusals) });

export const signup = open(
  {
    summary: "Sign up",
    description:
      "Without an invite: a new team on the free plan, with Cloud features on, and the user as its owner. With an invite (POST /v1/accounts/invites): the user joins the inviting team in the invite's role. No email is sent or verified. Answers an access token.",
    requestBody: jsonRequestBody(
      T.Object({ ...Credentials, team_name: T.Optional(T.String({ maxLength: 200, description: "the new team's name; default: the email" })), invite: T.Optional(T.String({ pattern: "^rinv_" })) }, { $id: "SignUp" }),
    ),
    responses: { 201: jsonResponse("The user, the team and an access token", Session) },
  },
  {
    400: "a field invalid (details.parameter names it: email, password, team_name, invite, token_name)",
    409: "an account with this email exists (email_taken); counted as a failed attempt of that email",
    413: "body over 16 KB (request_too_large)",
    429: `${THROTTLED}; or more sign-ups this minute than cloud.accounts.signupsPerMinute (rate_limit_exceeded)`,
  },
);

export const signin = open(
  {
    summary: "Sign in",
    description: "Checks the email and password and answers a new access token. An unknown email and a wrong password get the same 401.",
    requestBody: jsonRequestBody(T.Object(Credentials, { $id: "SignIn" })),
    responses: { 200: jsonResponse("The user, the team and an access token", Session) },
  },
  { 400: "a field invalid (details.parameter names it)", 401: "the email or the password is wrong (invalid_credentials)", 413: "body over 16 KB (request_too_large)", 429: THROTTLED },
);

export const me = guarded(
  {
    tags: ["accounts"],
    summary: "Who is calling",
    description: "The team, and the user with their token when an access token authenticated (user is null for an API key).",
    responses: {
      200: jsonResponse(
        "The caller",
        T.Object({ user: T.Union([User, T.Null()]), team: Team, credential: T.Object({ kind: T.Union([T.Literal("access_token"), T.Literal("api_key")]), key_type: T.String() }, { additionalProperties: true }) }),
      ),
    },
  },
  true,
);

export const status = guarded(
  {
    tags: ["accounts"],
    summary: "The team's account status",
    description: "The team, whether Cloud features are on, its plan and the plan's limits.",
    responses: { 200: jsonResponse("The status", T.Object({ team: Team, plan: T.Object({ name: Plan }, { additionalProperties: true }) })) },
  },
  true,
);

export const members = guarded(
  { tags: ["accounts"], summary: "The team's users", description: "Every user of the caller's team with their role, oldest first.", responses: { 200: jsonResponse("The users", T.Object({ members: T.Array(User) })) } },
  true,
);

/** A route for signed-in users only: the bearer token, and its refusals. */
function userOnly(op: Operation, readOnlyAllowed: boolean): Operation {
  const refusals: Record<number, string> = {
    401: "no access token (missing_access_token; an API key is no user), or it is unknown, expired or revoked (invalid_access_token)",
    429: "the team's plan allows no more requests this minute (rate_limit_exceeded)",
  };
  if (!readOnlyAllowed) refusals[403] = "a read_only member (permission_denied)";
  return { tags: ["accounts"], security: [{ [ACCESS_TOKEN_SCHEME]: [] }], ...op, responses: withHostedErrors(op.responses ?? {}, refusals) };
}

const Invite = T.Object(
  { id: T.String({ pattern: "^inv_" }), team_id: T.String(), email: T.String(), role: Role, created_by: T.String({ pattern: "^usr_" }), created_at: Iso, expires_at: Iso, used_at: T.Union([Iso, T.Null()]) },
  { $id: "AccountInvite" },
);

export const invite = userOnly(
  {
    summary: "Invite a member",
    description: "An owner invites one email in a role (default member). The invite token is in this answer only; the invitee signs up with it (POST /v1/accounts/signup `invite`) within seven days, once.",
    requestBody: jsonRequestBody(T.Object({ email: T.String(), role: T.Optional(Role) }, { $id: "NewInvite" })),
    responses: {
      201: jsonResponse("The invite and its token", T.Object({ invite: Invite, invite_token: T.String({ pattern: "^rinv_" }) })),
      ...errorResponses("spec", { 400: "email or role invalid (details.parameter names it)", 403: "the user is not an owner (permission_denied)", 413: "body over 16 KB (request_too_large)" }),
    },
  },
  false,
);

export const listTokens = userOnly(
  { summary: "The user's live access tokens", description: "Neither revoked nor expired, newest first; never a secret.", responses: { 200: jsonResponse("The tokens", T.Object({ tokens: T.Array(Token) })) } },
  true,
);

export const signout = userOnly(
  { summary: "Sign out", description: "Revokes the access token this request carries.", responses: { 200: jsonResponse("The revoked token's id", T.Object({ revoked: T.Array(T.String()) })) } },
  true,
);

export const revokeToken = userOnly(
  {
    summary: "Revoke one of the user's tokens",
    description: "The token authenticates nothing from now on. Another user's token is a 404.",
    parameters: [pathParameter("id", T.String({ pattern: "^tok_" }), "the token's id (tok_…)")],
    responses: { 200: jsonResponse("The token, with revoked_at", T.Object({ token: Token })), ...errorResponses("spec", { 404: "no such token of this user" }) },
  },
  true,
);

export const revokeAllTokens = userOnly(
  { summary: "Revoke all the user's tokens", description: "Every token of the user, this one included (sign out everywhere).", responses: { 200: jsonResponse("The ids of the tokens that were live", T.Object({ revoked: T.Array(T.String()) })) } },
  true,
);

const memberId = pathParameter("id", T.String({ pattern: "^usr_" }), "the member's user id (usr_…)");
const MEMBER_REFUSALS = { 403: "the user is not an owner (permission_denied)", 404: "no such member in this team", 409: "an owner's own account (own_account)" };

export const setRole = userOnly(
  {
    summary: "Change a member's role",
    description: "An owner changes another member's role; the member's tokens act with the new role from their next request.",
    parameters: [memberId],
    requestBody: jsonRequestBody(T.Object({ role: Role }, { $id: "SetRole" })),
    responses: {
      200: jsonResponse("The member", T.Object({ member: User })),
      ...errorResponses("spec", { 400: "role invalid (details.parameter)", 413: "body over 16 KB (request_too_large)", ...MEMBER_REFUSALS }),
    },
  },
  false,
);

export const removeMember = userOnly(
  {
    summary: "Remove a member",
    description: "An owner removes another member from the team: the user and every token of theirs are deleted.",
    parameters: [memberId],
    responses: { 200: jsonResponse("The removed member", T.Object({ removed: User })), ...errorResponses("spec", MEMBER_REFUSALS) },
  },
  false,
);

export const changePassword = userOnly(
  {
    summary: "Change the user's password",
    description: "Needs the current password (a wrong one is counted by the sign-in throttle). Every other token of the user is revoked; this one stays.",
    requestBody: jsonRequestBody(T.Object({ current_password: T.String(), new_password: T.String({ minLength: 10, maxLength: 256 }) }, { $id: "ChangePassword" })),
    responses: {
      200: jsonResponse("The ids of the tokens revoked", T.Object({ revoked: T.Array(T.String()) })),
      ...errorResponses("spec", { 400: "current_password or new_password invalid (details.parameter)", 401: "the current password is wrong (invalid_credentials)", 413: "body over 16 KB (request_too_large)", 429: THROTTLED }),
    },
  },
  true,
);
