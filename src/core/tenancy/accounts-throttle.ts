// Brute-force throttling of sign-in (issue 38 item 1). The hosted handlers do not see the peer's
// address (and behind a proxy it could not be trusted: cloud.behindProxy), so failures are counted
// per email and across all emails, in fixed windows kept in the store so that every instance sees
// them. An email over its budget is refused whether it has an account or not (no enumeration); the
// global budget stops a spray over many emails, at the price that such a spray also holds back
// honest sign-ins until the window ends; operators size it with cloud.accounts.signinFailuresGlobal.
import { CoreError } from "../errors.ts";
import { hashKey } from "./api-keys.ts";
import type { AccountStore } from "../../store/users/types.ts";

export interface ThrottleSettings {
  perEmail: number;
  global: number;
  windowMs: number;
}

const GLOBAL = "*";
const subjectOf = async (email: string) => `email:${await hashKey(email)}`;

const tooMany = (retryAfterSec: number) =>
  new CoreError(429, "too_many_attempts", "too many failed attempts; wait before trying again", { retryAfter: retryAfterSec });

/** 429 when the email or everyone is over the failure budget of the current window. */
export async function checkThrottle(store: AccountStore, settings: ThrottleSettings, email: string, now: number): Promise<void> {
  const since = now - settings.windowMs;
  for (const [subject, limit] of [[await subjectOf(email), settings.perEmail], [GLOBAL, settings.global]] as const) {
    const w = await store.failures(subject, since);
    if (w && w.failures >= limit) throw tooMany(Math.max(1, Math.ceil((w.window_start + settings.windowMs - now) / 1000)));
  }
}

/** Counts a failed attempt for the email and for everyone. */
export async function recordFailure(store: AccountStore, settings: ThrottleSettings, email: string, now: number): Promise<void> {
  const since = now - settings.windowMs;
  await store.recordFailure(await subjectOf(email), now, since);
  await store.recordFailure(GLOBAL, now, since);
}

/** A successful sign-in forgets the email's failures (not everyone's). */
export const clearFailures = async (store: AccountStore, email: string): Promise<void> => store.clearFailures(await subjectOf(email));
