// Vertex AI can stream one function call's arguments over many chunks
// (`functionCallingConfig.streamFunctionCallArguments`): the call opens with
// `{name, willContinue: true}`, then `partialArgs` entries set scalar values at
// JSONPaths (`$.recipe.steps[1]`), a string arriving in pieces while its entry
// says `willContinue`, and the call ends at a functionCall part without
// `willContinue` (often an empty `{}`).
import { isRecord, optString, records, type JsonObject } from "../shared/guards.ts";

type Segment = string | number;
type Container = Record<string, unknown> | unknown[];

export class PartialArgs {
  /** Path whose string value is still arriving in pieces. */
  private continuing: string | undefined;

  constructor(readonly args: JsonObject) {}

  apply(partialArgs: unknown): void {
    for (const partial of records(partialArgs)) {
      const path = optString(partial.jsonPath);
      const segments = path === undefined ? undefined : parseJsonPath(path);
      const value = scalarOf(partial);
      if (!segments || segments.length === 0 || value === undefined) continue;
      const previous = this.continuing === path ? read(this.args, segments) : undefined;
      write(this.args, segments, typeof value === "string" && typeof previous === "string" ? previous + value : value);
      this.continuing = partial.willContinue === true ? path : undefined;
    }
  }
}

function scalarOf(partial: JsonObject): unknown {
  if (typeof partial.stringValue === "string") return partial.stringValue;
  if (typeof partial.numberValue === "number") return partial.numberValue;
  if (typeof partial.boolValue === "boolean") return partial.boolValue;
  if (partial.nullValue !== undefined) return null;
  return undefined;
}

/** The segments of a normalized JSONPath such as `$.a.b[0]['c d']`, or undefined if it is not one. */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const step = /\.([^.[\]]+)|\[(\d+)\]|\[(['"])(.*?)\3\]/y;
  step.lastIndex = 1;
  const segments: Segment[] = [];
  while (step.lastIndex < path.length) {
    const m = step.exec(path);
    if (!m) return undefined;
    segments.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[4]));
  }
  return segments;
}

function read(root: JsonObject, segments: Segment[]): unknown {
  let node: unknown = root;
  for (const s of segments) node = isRecord(node) || Array.isArray(node) ? (node as Record<Segment, unknown>)[s] : undefined;
  return node;
}

function write(root: JsonObject, segments: Segment[], value: unknown): void {
  let node: Container = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const slot = node as Record<Segment, unknown>;
    const child = slot[segments[i]];
    if (isRecord(child) || Array.isArray(child)) {
      node = child;
    } else {
      const created: Container = typeof segments[i + 1] === "number" ? [] : {};
      slot[segments[i]] = created;
      node = created;
    }
  }
  (node as Record<Segment, unknown>)[segments[segments.length - 1]] = value;
}
