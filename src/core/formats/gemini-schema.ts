// Gemini's `parameters` / `responseSchema` accept an OpenAPI-3 subset of JSON
// Schema and reject the rest with a 400, so schemas written for OpenAI or
// Anthropic must be rewritten before they are sent, and Gemini schemas turned
// back into plain JSON Schema when a Gemini client's request goes elsewhere.
// Both walks recurse once per level of a client's schema, so both stop at
// MAX_SCHEMA_DEPTH; the rewrite also inlines `$ref`s, which can expand a small
// schema exponentially, so it stops at MAX_SCHEMA_NODES too (a 400 either way).
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, tooDeep } from "../client-json.ts";
import { CodecError } from "./types.ts";
import { isRecord, type JsonObject } from "./shared/guards.ts";

/** Scalar keywords Gemini's Schema object understands; everything else is dropped. */
const KEPT = [
  "format",
  "title",
  "description",
  "nullable",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "propertyOrdering",
] as const;

/** Gemini rejects any other `format` (e.g. "email", "uri") on these types. A Map: the type is the client's string. */
const FORMATS = new Map<string, readonly string[]>([
  ["string", ["enum", "date-time"]],
  ["number", ["float", "double"]],
  ["integer", ["int32", "int64"]],
]);

const SCHEMA = "schema";

/** One rewrite's definitions and how many nodes it has produced. */
class Walk {
  nodes = 0;
  constructor(readonly defs: JsonObject) {}

  /** The depth of the node about to be converted; throws past the bounds. */
  enter(depth: number): number {
    if (depth > MAX_SCHEMA_DEPTH) throw tooDeep(SCHEMA, MAX_SCHEMA_DEPTH);
    if (++this.nodes > MAX_SCHEMA_NODES) throw new CodecError(`${SCHEMA} expands to over ${MAX_SCHEMA_NODES} nodes`, SCHEMA, "a smaller schema");
    return depth + 1;
  }
}

/** Rewrites a JSON Schema into the subset Gemini accepts, keeping its meaning where it can. */
export function sanitizeGeminiSchema(schema: JsonObject): JsonObject {
  const defs = { ...asObject(schema.definitions), ...asObject(schema.$defs) };
  return convert(schema, new Walk(defs), [], 0);
}

function convert(node: JsonObject, w: Walk, refStack: string[], depth: number): JsonObject {
  const next = w.enter(depth);
  if (typeof node.$ref === "string") return inlineRef(node, w, refStack, next);
  if (Array.isArray(node.allOf)) return convert(mergeAllOf(node), w, refStack, next);

  const variants = node.anyOf ?? node.oneOf;
  if (Array.isArray(variants)) return convertUnion(node, variants.filter(isRecord), w, refStack, next);

  const { type, nullable } = splitType(node.type);
  if (Array.isArray(type)) {
    // Several non-null types: Gemini has no type list, only anyOf.
    const { description, title, ...rest } = node;
    return convertUnion({ description, title }, type.map((t) => ({ ...rest, type: t })), w, refStack, next, nullable);
  }

  const out: JsonObject = {};
  for (const key of KEPT) if (node[key] !== undefined) out[key] = node[key];
  if (type !== undefined) out.type = type;
  if (nullable) out.nullable = true;
  if (typeof out.format === "string" && !FORMATS.get(String(type))?.includes(out.format)) delete out.format;

  copyEnum(node, out);
  copyObjectKeywords(node, out, w, refStack, next);
  if (isRecord(node.items)) out.items = convert(node.items, w, refStack, next);
  else if (Array.isArray(node.items) || Array.isArray(node.prefixItems)) {
    // Tuples: Gemini only knows one item schema, so accept any of the positions.
    const positions = ((node.prefixItems ?? node.items) as unknown[]).filter(isRecord);
    out.items = convertUnion({}, positions, w, refStack, next);
  }
  return out;
}

function inlineRef(node: JsonObject, w: Walk, refStack: string[], depth: number): JsonObject {
  const { $ref, ...siblings } = node;
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(String($ref))?.[1];
  const target = name === undefined || !Object.hasOwn(w.defs, name) ? undefined : w.defs[name];
  if (name === undefined || !isRecord(target) || refStack.includes(name)) {
    // Unresolvable or recursive: Gemini has no references, so fall back to a free-form object.
    return convert({ type: "object", ...siblings }, w, refStack, depth);
  }
  return convert({ ...target, ...siblings }, w, [...refStack, name], depth);
}

/** Folds `allOf` members into one schema (properties and required lists are unioned). */
function mergeAllOf(node: JsonObject): JsonObject {
  const { allOf, ...base } = node;
  const merged: JsonObject = { ...base };
  for (const part of (allOf as unknown[]).filter(isRecord)) {
    const properties = { ...asObject(merged.properties), ...asObject(part.properties) };
    const required = [...asArray(merged.required), ...asArray(part.required)];
    Object.assign(merged, part);
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.length > 0) merged.required = [...new Set(required)];
  }
  return merged;
}

/** `anyOf`/`oneOf`: a `{type:"null"}` member becomes `nullable`; a single remaining member is unwrapped. */
function convertUnion(
  node: JsonObject,
  variants: JsonObject[],
  w: Walk,
  refStack: string[],
  depth: number,
  nullable = false,
): JsonObject {
  const nonNull = variants.filter((v) => v.type !== "null");
  const isNullable = nullable || nonNull.length < variants.length;
  const { anyOf: _a, oneOf: _o, ...siblings } = node;
  if (nonNull.length === 1) {
    const single = convert({ ...nonNull[0], ...definedOnly(siblings) }, w, refStack, depth);
    return isNullable ? { ...single, nullable: true } : single;
  }
  const out = convert(siblings, w, refStack, depth);
  if (nonNull.length > 0) out.anyOf = nonNull.map((v) => convert(v, w, refStack, depth));
  if (isNullable) out.nullable = true;
  return out;
}

function copyEnum(node: JsonObject, out: JsonObject): void {
  const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : undefined;
  if (!values) return;
  const present = values.filter((v) => v !== null);
  if (present.length < values.length) out.nullable = true;
  // Gemini enums are string-only; a numeric enum would be rejected, and
  // stringifying it would change the type the model returns, so it is dropped.
  if (present.length > 0 && present.every((v) => typeof v === "string")) {
    out.type = "string";
    out.enum = present;
  }
}

function copyObjectKeywords(node: JsonObject, out: JsonObject, w: Walk, refStack: string[], depth: number): void {
  const properties = asObject(node.properties);
  const names = Object.keys(properties);
  // Gemini rejects an OBJECT with an empty `properties` map; a bare object type is accepted.
  if (names.length === 0) return;
  out.properties = Object.fromEntries(
    names.map((name) => [name, convert(asObject(properties[name]), w, refStack, depth)]),
  );
  // A `required` name without a property is a 400 at Gemini.
  const required = asArray(node.required).filter((r): r is string => typeof r === "string" && names.includes(r));
  if (required.length > 0) out.required = required;
}

function splitType(type: unknown): { type?: string | string[]; nullable: boolean } {
  if (!Array.isArray(type)) return type === "null" ? { nullable: true } : { type: optType(type), nullable: false };
  const nonNull = type.filter((t): t is string => typeof t === "string" && t !== "null");
  const nullable = nonNull.length < type.length;
  return { type: nonNull.length === 1 ? nonNull[0] : nonNull.length === 0 ? undefined : nonNull, nullable };
}

const optType = (t: unknown): string | undefined => (typeof t === "string" ? t : undefined);
const asObject = (v: unknown): JsonObject => (isRecord(v) ? v : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const definedOnly = (o: JsonObject): JsonObject =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * Turns a Gemini (OpenAPI-subset) schema back into JSON Schema: upper-case
 * type names become lower-case and `nullable` becomes a `"null"` type member.
 */
export function geminiSchemaToJsonSchema(schema: JsonObject, depth = 0): JsonObject {
  if (depth > MAX_SCHEMA_DEPTH) throw tooDeep(SCHEMA, MAX_SCHEMA_DEPTH);
  const inner = (v: JsonObject) => geminiSchemaToJsonSchema(v, depth + 1);
  const { type, nullable, format, properties, items, anyOf, ...rest } = schema;
  const out: JsonObject = { ...rest };
  const jsonType = typeof type === "string" && type !== "TYPE_UNSPECIFIED" ? type.toLowerCase() : undefined;
  if (jsonType) out.type = nullable === true ? [jsonType, "null"] : jsonType;
  if (typeof format === "string" && format !== "enum") out.format = format;
  if (isRecord(properties)) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([k, v]) => [k, inner(asObject(v))]),
    );
  }
  if (isRecord(items)) out.items = inner(items);
  if (Array.isArray(anyOf)) {
    const converted = anyOf.filter(isRecord).map(inner);
    out.anyOf = nullable === true && !jsonType ? [...converted, { type: "null" }] : converted;
  }
  return out;
}
