// Field checks of the agent registry's bodies: each refusal is a 400 naming the field (a dotted
// path for a card's fields) in details.parameter, with a type name in details.expected.
import { CoreError } from "../errors.ts";

export const invalid = (parameter: string, provided: unknown, expected: string, message: string) =>
  new CoreError(400, "invalid_request", `${parameter} ${message}`, { details: { parameter, provided, expected } });

/** A non-empty string of at most `max` characters. */
export function text(value: unknown, parameter: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > max) {
    throw invalid(parameter, value, "string", `must be a non-empty string of at most ${max} characters`);
  }
  return value;
}

/** An absolute http or https URL; never fetched here. */
export function httpUrl(value: unknown, parameter: string): string {
  const s = text(value, parameter, 2048);
  const url = URL.canParse(s) ? new URL(s) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") throw invalid(parameter, value, "string", "must be an absolute http or https URL");
  return s;
}

export function object(value: unknown, parameter: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(parameter, value, "object", "must be an object");
  return value as Record<string, unknown>;
}

export function array(value: unknown, parameter: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length > max) throw invalid(parameter, value, "array", `must be an array of at most ${max} items`);
  return value;
}

export const texts = (value: unknown, parameter: string, maxItems: number, maxLength: number): string[] =>
  array(value, parameter, maxItems).map((v, i) => text(v, `${parameter}[${i}]`, maxLength));

export function bool(value: unknown, parameter: string): boolean {
  if (typeof value !== "boolean") throw invalid(parameter, value, "boolean", "must be true or false");
  return value;
}
