// Invites (issue 38 item 1): no mail can be sent, so an owner makes an invite for one email and a
// role, is shown its token once (`inv_…` id, `rinv_` secret), and hands it over; the invitee signs up
// with it and joins the owner's team in that role. An invite works once, for that email only, for
// seven days; the store keeps the token's SHA-256.
import { invalid } from "../registry/fields.ts";
import { prefixedId, secretToken } from "../ids.ts";
import type { AccountStore, Invite, User } from "../../store/users/types.ts";
import { CoreError } from "../errors.ts";
import * as f from "./accounts-fields.ts";
import { hashKey } from "./api-keys.ts";

const INVITE_PREFIX = "rinv_";
const INVITE_TTL_MS = 7 * 86_400_000;

export const publicInvite = ({ hash: _hash, expires_at, ...rest }: Invite) => ({ ...rest, expires_at: new Date(expires_at).toISOString() });

/** POST /v1/accounts/invites' body, for an owner `by`: the invite and its token, shown once. */
export async function createInvite(accounts: AccountStore, by: User, body: Record<string, unknown>, now: number): Promise<{ invite: Invite; secret: string }> {
  if (by.role !== "owner") throw new CoreError(403, "permission_denied", "only a team owner can invite members");
  const email = f.email(body.email);
  const role = f.role(body.role ?? "member");
  const secret = INVITE_PREFIX + secretToken(32);
  const invite: Invite = {
    id: prefixedId("inv"),
    team_id: by.team_id,
    email,
    role,
    hash: await hashKey(secret),
    created_by: by.id,
    created_at: new Date(now).toISOString(),
    expires_at: now + INVITE_TTL_MS,
    used_at: null,
  };
  await accounts.insertInvite(invite);
  return { invite, secret };
}

/** The invite a sign-up of `email` presents, marked used; 400 naming `invite` when it cannot be used. */
export async function claimInvite(accounts: AccountStore, secret: string, email: string, now: number): Promise<Invite> {
  const invite = await accounts.inviteByHash(await hashKey(secret));
  // One answer for every reason: the token is not a way to learn about invites.
  const refused = invalid("invite", undefined, "string", "is not a valid, unused and unexpired invite for this email");
  if (!invite || invite.email !== email || invite.expires_at <= now) throw refused;
  if (!(await accounts.useInvite(invite.id, new Date(now).toISOString()))) throw refused;
  return invite;
}
