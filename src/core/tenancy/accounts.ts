// Accounts of the hosted API (issue 38 item 1): sign-up, sign-in and invites, on the teams of the
// hosted API. A sign-up without an invite makes a new team on the free plan, with Cloud features
// on and the user as its owner; with an invite (made by an owner: accounts-invites.ts) it joins that
// team in the invite's role. Nothing is mailed from here, so there is no email verification, and a
// forgotten password is reset by an operator (`relay cloud users reset-password`).
//
// Enumeration: a sign-in answers one 401 for an unknown email and a wrong password, after the same
// argon2id work (a dummy hash is checked for an unknown email). A sign-up of a taken email has to
// say so (409 email_taken: without mail there is no "check your inbox" to hide behind), so it is
// counted as a failure of that email and of the global budget: probing for accounts through sign-up
// is throttled like guessing passwords.
import type { Config } from "../../config/schema.ts";
import { hashPassword, verifyPassword, type PasswordCost } from "../../runtime/password.ts";
import type { Team, TeamStore } from "../../store/teams/types.ts";
import type { AccountStore, Role, User } from "../../store/users/types.ts";
import { CoreError } from "../errors.ts";
import { prefixedId } from "../ids.ts";
import * as f from "./accounts-fields.ts";
import { checkThrottle, clearFailures, recordFailure, type ThrottleSettings } from "./accounts-throttle.ts";
import { mintToken, type MintedToken } from "./accounts-tokens.ts";
import { claimInvite } from "./accounts-invites.ts";

export interface AccountSettings {
  cost: PasswordCost;
  tokenTtlMs: number;
  throttle: ThrottleSettings;
}

export const accountSettings = (c: Config["cloud"]["accounts"]): AccountSettings => ({
  cost: { memoryKiB: c.passwordMemoryKiB, timeCost: c.passwordTimeCost },
  tokenTtlMs: c.tokenTtlDays * 86_400_000,
  throttle: { perEmail: c.signinFailuresPerEmail, global: c.signinFailuresGlobal, windowMs: c.signinWindowMinutes * 60_000 },
});

export interface Accounts {
  store: { accounts: AccountStore; teams: TeamStore };
  settings: AccountSettings;
  now: number;
}

/** What a sign-up or sign-in answers: who, in which team, and a new access token. */
export interface Session extends MintedToken {
  user: User;
  team: Team;
}

/** POST /v1/accounts/signup's body. */
export async function signUp(a: Accounts, body: Record<string, unknown>): Promise<Session> {
  const email = f.email(body.email);
  const password = f.password(body.password);
  const teamName = f.optionalName(body.team_name, "team_name", email);
  const invite = f.optionalSecret(body.invite, "invite");
  const tokenName = f.optionalName(body.token_name, "token_name", "");
  const { accounts, teams } = a.store;
  await checkThrottle(accounts, a.settings.throttle, email, a.now);
  const at = new Date(a.now).toISOString();
  const joining = invite === undefined ? undefined : await claimInvite(accounts, invite, email, a.now);
  const teamId = joining?.team_id ?? prefixedId("team");
  const role: Role = joining?.role ?? "owner";
  const user: User = { id: prefixedId("usr"), team_id: teamId, email, role, password_hash: await hashPassword(password, a.settings.cost), created_at: at, password_reset_at: null };
  if (!(await accounts.insertUser(user))) {
    await recordFailure(accounts, a.settings.throttle, email, a.now);
    throw new CoreError(409, "email_taken", "an account with this email exists; sign in instead (an operator resets a forgotten password)");
  }
  if (!joining) {
    await teams.insertTeam({ id: teamId, name: teamName, plan: "free", created_at: at });
    await accounts.setCloudEnabled(teamId, true);
  }
  const team = (await teams.getTeam(teamId))!;
  return { user, team, ...(await mintToken(accounts, user, tokenName, a.now, a.settings.tokenTtlMs)) };
}

/** Checked for an unknown email, so that it costs what a wrong password costs. */
let dummyHash: Promise<string> | undefined;

/** POST /v1/accounts/signin's body: one 401 for an unknown email and a wrong password. */
export async function signIn(a: Accounts, body: Record<string, unknown>): Promise<Session> {
  const email = f.email(body.email);
  const password = f.password(body.password);
  const tokenName = f.optionalName(body.token_name, "token_name", "");
  const { accounts, teams } = a.store;
  await checkThrottle(accounts, a.settings.throttle, email, a.now);
  const user = await accounts.userByEmail(email);
  dummyHash ??= hashPassword("relay-dummy-password", a.settings.cost);
  const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash));
  const team = user && matches ? await teams.getTeam(user.team_id) : undefined;
  if (!user || !team) {
    await recordFailure(accounts, a.settings.throttle, email, a.now);
    throw new CoreError(401, "invalid_credentials", "the email or the password is wrong");
  }
  await clearFailures(accounts, email);
  // Sign-ins are rare: a good moment to forget tokens that ended.
  await accounts.deleteExpiredTokens(a.now);
  return { user, team, ...(await mintToken(accounts, user, tokenName, a.now, a.settings.tokenTtlMs)) };
}

/**
 * The operator's reset: a new password (stored hashed) and every token of the user revoked. Throws
 * when there is no such user.
 */
export async function resetPassword(accounts: AccountStore, cost: PasswordCost, email: string, password: string, now: number): Promise<User> {
  const user = await accounts.userByEmail(f.email(email));
  if (!user) throw new CoreError(404, "not_found", `no user ${email}`);
  const at = new Date(now).toISOString();
  await accounts.setPassword(user.id, await hashPassword(f.password(password), cost), at);
  await accounts.revokeUserTokens(user.id, at);
  return (await accounts.getUser(user.id))!;
}
