// Bounds on walking JSON a client sent. Bun's JSON.parse reads any depth
// without recursion, but a walk over the result recurses once per level: a
// 100k-deep tool schema overflows the stack, and JSON.stringify of one spends
// seconds of the request thread before it gives up (measured: 0.9 s at 30k
// levels, 3.5 s to fail at 50k). So every walk over a client's JSON is bounded
// before it starts: Relay's own recursive walks count their depth, and a value
// about to be serialised is checked first, by a walk that stops at the bound.
// The check runs only where a serialisation runs anyway (an estimate, a body
// converted to another vendor's format), never on a passthrough.
import { CodecError } from "./formats/types.ts";

/** The deepest nesting of containers Relay serialises from a client's value (a whole converted body included). */
export const MAX_JSON_DEPTH = 128;
/** The deepest schema Relay rewrites (real tool schemas stay under 20 levels). */
export const MAX_SCHEMA_DEPTH = 64;
/** The most schema nodes one rewrite may produce: `$ref`s can otherwise expand a small schema exponentially. */
export const MAX_SCHEMA_NODES = 20_000;

export const tooDeep = (parameter: string, limit: number): CodecError =>
  new CodecError(`${parameter} is nested too deeply (over ${limit} levels)`, parameter, "a JSON value of reasonable depth");

/** Whether `value` nests containers more than `limit` deep; the walk itself never goes deeper than `limit`. */
export function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

/** JSON.stringify of a client's value; one nested deeper than MAX_JSON_DEPTH is the client's 400 (a CodecError naming it). */
export function stringifyClient(value: unknown, parameter: string): string {
  if (deeperThan(value, MAX_JSON_DEPTH)) throw tooDeep(parameter, MAX_JSON_DEPTH);
  return JSON.stringify(value);
}

/** JSON text of a client's value for an estimate: containers deeper than MAX_JSON_DEPTH are left out rather than refused. */
export function estimateText(value: unknown): string {
  return JSON.stringify(deeperThan(value, MAX_JSON_DEPTH) ? cut(value, MAX_JSON_DEPTH) : value) ?? "";
}

/** A copy of `value` with containers below `depth` levels replaced by null. */
function cut(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth === 0) return null;
  if (Array.isArray(value)) return value.map((v) => cut(v, depth - 1));
  const out: Record<string, unknown> = {};
  for (const key in value) Object.defineProperty(out, key, { value: cut((value as Record<string, unknown>)[key], depth - 1), enumerable: true });
  return out;
}
