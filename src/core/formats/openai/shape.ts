// Shape checks for untrusted JSON. Each failure names the parameter path and the
// expected type so the client gets an actionable 400 (`details.parameter`).
import { CodecError } from "../types.ts";

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

export function invalid(path: string, expected: string, got: unknown): never {
  throw new CodecError(`${path} must be ${expected}, got ${describe(got)}`, path, expected);
}

export function expectObject(v: unknown, path: string): Json {
  return isObject(v) ? v : invalid(path, "object", v);
}

export function expectArray(v: unknown, path: string): unknown[] {
  return Array.isArray(v) ? v : invalid(path, "array", v);
}

export function expectString(v: unknown, path: string): string {
  return typeof v === "string" ? v : invalid(path, "string", v);
}

/** `null` counts as absent: OpenAI clients send explicit nulls for unset fields. */
export function optionalString(v: unknown, path: string): string | undefined {
  return v == null ? undefined : expectString(v, path);
}

export function optionalNumber(v: unknown, path: string): number | undefined {
  if (v == null) return undefined;
  return typeof v === "number" && Number.isFinite(v) ? v : invalid(path, "number", v);
}

export function optionalBoolean(v: unknown, path: string): boolean | undefined {
  if (v == null) return undefined;
  return typeof v === "boolean" ? v : invalid(path, "boolean", v);
}

/** Reads a field that is informative only: wrong types degrade to the fallback. */
export const stringOr = (v: unknown, fallback: string): string =>
  typeof v === "string" ? v : fallback;

export const numberOr = (v: unknown, fallback: number): number =>
  typeof v === "number" && Number.isFinite(v) ? v : fallback;
