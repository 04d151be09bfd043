// Field checks of the account routes' bodies: each refusal is a 400 naming the field. The password
// policy follows NIST SP 800-63B: a length floor and a generous ceiling, no composition rules.
import { invalid, text } from "../registry/fields.ts";
import type { Role } from "../../store/users/types.ts";

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;
const EMAIL_MAX = 254;
// Deliberately loose: one @, something on each side, a dot in the domain. Nothing is mailed, so
// stricter checks would only refuse real addresses.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const ROLES: readonly Role[] = ["owner", "member", "read_only"];

/** The address trimmed and lower-cased: one account per address whatever its spelling. */
export function email(value: unknown, parameter = "email"): string {
  if (typeof value !== "string" || value.trim().length > EMAIL_MAX || !EMAIL.test(value.trim())) {
    throw invalid(parameter, typeof value === "string" ? value.slice(0, 300) : value, "string", "must be an email address (name@domain.tld)");
  }
  return value.trim().toLowerCase();
}

/** A password within the policy; never echoed back in the refusal. */
export function password(value: unknown, parameter = "password"): string {
  if (typeof value !== "string" || [...value].length < PASSWORD_MIN || [...value].length > PASSWORD_MAX) {
    throw invalid(parameter, undefined, "string", `must be a string of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return value;
}

export function role(value: unknown, parameter = "role"): Role {
  if (!ROLES.includes(value as Role)) throw invalid(parameter, value, "string", `must be one of ${ROLES.join(", ")}`);
  return value as Role;
}

/** An optional name (of a team, of a token): `fallback` when absent. */
export const optionalName = (value: unknown, parameter: string, fallback: string): string => (value === undefined ? fallback : text(value, parameter, 200).trim());

/** An optional secret string (an invite token): undefined when absent. */
export function optionalSecret(value: unknown, parameter: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || value.length > 200) throw invalid(parameter, undefined, "string", "must be the token you were given");
  return value;
}
