// Narrowing helpers for reading untyped wire JSON. Format-neutral: the Ollama
// codec uses them too.
import { CodecError } from "../types.ts";

export type JsonObject = Record<string, unknown>;

export const isRecord = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The object elements of `v`, or none when it is not an array. */
export const records = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isRecord) : []);

export const optString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export const optNumber = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

export function requireRecord(v: unknown, parameter: string): JsonObject {
  if (!isRecord(v)) throw new CodecError(`${parameter} must be an object`, parameter, "object");
  return v;
}

export function requireArray(v: unknown, parameter: string): unknown[] {
  if (!Array.isArray(v)) throw new CodecError(`${parameter} must be an array`, parameter, "array");
  return v;
}

/** Copies `obj` without `keys`; used to collect the parameters a codec does not model. */
export function omitKeys(obj: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) out[k] = v;
  return out;
}

export const isEmpty = (obj: JsonObject): boolean => Object.keys(obj).length === 0;

/** Parses JSON text from a vendor stream, as a CodecError when it is not JSON. */
export function parseJson(text: string, parameter: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CodecError(`${parameter} is not valid JSON`, parameter, "JSON");
  }
}

/** Tool arguments as the object Gemini and Ollama require; malformed vendor JSON yields no arguments rather than a broken stream. */
export function parseArgsObject(json: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(json || "{}");
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
