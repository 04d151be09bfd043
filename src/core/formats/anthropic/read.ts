// Shape checks for untrusted wire JSON. Each failure names the offending
// parameter path (e.g. `messages[1].content[0].type`) and the expected type,
// which the gateway reports as `details.parameter` / `details.expected`.
import { CodecError } from "../types.ts";

export type Json = Record<string, unknown>;

export const isRecord = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const fail = (path: string, expected: string): never => {
  throw new CodecError(`${path} must be ${expected}`, path, expected);
};

export function record(v: unknown, path: string): Json {
  return isRecord(v) ? v : fail(path, "object");
}

export function array(v: unknown, path: string): unknown[] {
  return Array.isArray(v) ? v : fail(path, "array");
}

export function string(v: unknown, path: string): string {
  return typeof v === "string" ? v : fail(path, "string");
}

/** Absent and null both mean "not given" on Anthropic's wire. */
export function optString(v: unknown, path: string): string | undefined {
  return v === undefined || v === null ? undefined : string(v, path);
}

export function optNumber(v: unknown, path: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "number" && Number.isFinite(v) ? v : fail(path, "number");
}

export function optBoolean(v: unknown, path: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "boolean" ? v : fail(path, "boolean");
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
  return typeof v === "string" && (allowed as readonly string[]).includes(v)
    ? (v as T)
    : fail(path, allowed.join(" | "));
}
