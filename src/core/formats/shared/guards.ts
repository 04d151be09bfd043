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

/** Copy without `undefined` members, so decoded objects carry only keys that were set. */
export function definedOnly<T extends object>(o: T): T {
  // A plain loop: entries/filter/fromEntries cost ~2 µs on every decoded request.
  const out: Record<string, unknown> = {};
  for (const key in o) {
    const v = o[key];
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}

/** Sets a member as data: an own "__proto__" key (JSON.parse makes one) must not become the prototype. */
function setData(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The members of a request body a codec does not map (its `extra`), or undefined when there are none. */
export function unmappedMembers(body: JsonObject, mapped: ReadonlySet<string>): JsonObject | undefined {
  let extra: JsonObject | undefined;
  for (const key in body) if (!mapped.has(key)) setData((extra ??= {}), key, body[key]);
  return extra;
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
