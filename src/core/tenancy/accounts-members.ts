// What a signed-in user changes about the team's people (issue 38 item 1): an owner changes a
// member's role or removes them (their tokens go with them); anyone changes their own password,
// which revokes their other tokens. An owner cannot change or remove themselves, so a team always
// keeps the owner it has.
import type { AccountStore, User } from "../../store/users/types.ts";
import { hashPassword, verifyPassword } from "../../runtime/password.ts";
import type { Accounts } from "./accounts.ts";
import { checkThrottle, recordFailure } from "./accounts-throttle.ts";
import { CoreError } from "../errors.ts";
import * as f from "./accounts-fields.ts";

/** The member `id` of the owner's team, for the owner `by`: 403 for a non-owner, 404 for another team's, 409 for the owner. */
async function memberOf(accounts: AccountStore, by: User, id: string): Promise<User> {
  if (by.role !== "owner") throw new CoreError(403, "permission_denied", "only a team owner can change or remove members");
  const member = await accounts.getUser(id);
  if (!member || member.team_id !== by.team_id) throw new CoreError(404, "not_found", `no member ${id} in this team`);
  if (member.id === by.id) throw new CoreError(409, "own_account", "an owner cannot change or remove their own account");
  return member;
}

/** PATCH /v1/accounts/members/:id `{role}`. */
export async function setMemberRole(accounts: AccountStore, by: User, id: string, body: Record<string, unknown>): Promise<User> {
  const role = f.role(body.role);
  const member = await memberOf(accounts, by, id);
  await accounts.setRole(member.id, role);
  return { ...member, role };
}

/** DELETE /v1/accounts/members/:id: the user and their tokens are gone. */
export async function removeMember(accounts: AccountStore, by: User, id: string): Promise<User> {
  const member = await memberOf(accounts, by, id);
  await accounts.deleteUser(member.id);
  return member;
}

/**
 * POST /v1/accounts/password `{current_password, new_password}`: every other token of the user is
 * revoked (a leaked password's sessions end); the ids revoked. A wrong current password is a 401
 * counted by the sign-in throttle (a stolen token must not become a way to guess the password).
 */
export async function changePassword(a: Accounts, user: User, keepTokenId: string, body: Record<string, unknown>): Promise<string[]> {
  const current = f.password(body.current_password, "current_password");
  const next = f.password(body.new_password, "new_password");
  const { accounts } = a.store;
  await checkThrottle(accounts, a.settings.throttle, user.email, a.now);
  if (!(await verifyPassword(current, user.password_hash))) {
    await recordFailure(accounts, a.settings.throttle, user.email, a.now);
    throw new CoreError(401, "invalid_credentials", "the current password is wrong");
  }
  await accounts.setPassword(user.id, await hashPassword(next, a.settings.cost), null);
  const at = new Date(a.now).toISOString();
  const others = (await accounts.liveTokens(user.id, a.now)).filter((t) => t.id !== keepTokenId);
  for (const t of others) await accounts.revokeToken(t.id, at);
  return others.map((t) => t.id);
}
