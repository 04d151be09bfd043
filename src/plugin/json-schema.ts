// A plugin may declare its options as hand-written JSON Schema instead of TypeBox. TypeBox checks a
// schema by the [Kind] tag its builders add, which a plain object lacks, so this tags a copy. Only
// the keywords TypeBox checks the way JSON Schema means them are accepted; any other is refused when
// the plugin loads, so no keyword is silently ignored (a schema that looks strict but is not).
import { Kind, type TSchema } from "@sinclair/typebox";

const KIND_OF_TYPE: Record<string, string> = {
  object: "Object",
  array: "Array",
  string: "String",
  number: "Number",
  integer: "Integer",
  boolean: "Boolean",
  null: "Null",
};

const NOTES = ["description", "title", "default", "examples", "$comment", "$schema", "$id"];
const NUMERIC = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const KEYWORDS: Record<string, ReadonlySet<string>> = {
  Object: new Set([...NOTES, "type", "properties", "required", "additionalProperties", "minProperties", "maxProperties"]),
  Array: new Set([...NOTES, "type", "items", "minItems", "maxItems", "uniqueItems"]),
  String: new Set([...NOTES, "type", "minLength", "maxLength", "pattern"]),
  Number: new Set([...NOTES, "type", ...NUMERIC]),
  Integer: new Set([...NOTES, "type", ...NUMERIC]),
  Boolean: new Set([...NOTES, "type"]),
  Null: new Set([...NOTES, "type"]),
  Union: new Set([...NOTES, "anyOf"]),
  Literal: new Set([...NOTES, "type", "const"]),
  Unknown: new Set(NOTES),
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A TypeBox-checkable copy of a JSON Schema; throws a TypeError naming the JSON pointer of what it cannot check. */
export function fromJsonSchema(schema: unknown, at = ""): TSchema {
  if (!isObject(schema)) throw new TypeError(`${at || "/"}: a schema must be an object`);
  if (Kind in schema) return schema as TSchema; // built with TypeBox (or already tagged)
  if (Array.isArray(schema.type)) return typeList(schema, schema.type, at);
  if (Array.isArray(schema.enum)) {
    // `type` beside `enum` adds nothing the listed values do not already say.
    const { enum: values, type: _type, ...rest } = schema;
    return tagged({ ...rest, anyOf: values.map((v) => ({ const: v })) }, "Union", at);
  }
  const kind = "anyOf" in schema ? "Union" : "const" in schema ? "Literal" : schema.type === undefined ? "Unknown" : KIND_OF_TYPE[String(schema.type)];
  if (!kind) throw new TypeError(`${at}/type: unknown type ${JSON.stringify(schema.type)}`);
  return tagged(schema, kind, at);
}

/** `type: ["string", "null"]`: one branch per type, each with the keywords that apply to its type, as JSON Schema means them. */
function typeList(schema: Json, types: unknown[], at: string): TSchema {
  const branches = types.map((t) => {
    const kind = KIND_OF_TYPE[String(t)];
    if (!kind) throw new TypeError(`${at}/type: unknown type ${JSON.stringify(t)}`);
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "type" && KEYWORDS[kind]!.has(k)).concat([["type", t]]));
  });
  for (const key of Object.keys(schema)) {
    if (!branches.some((b) => key in b)) throw new TypeError(`${at}/${key}: JSON Schema keyword ${JSON.stringify(key)} applies to none of the types ${JSON.stringify(types)}`);
  }
  return tagged({ anyOf: branches }, "Union", at);
}

/** Keyword values TypeBox would otherwise misread (a string `minimum` compares by coercion, a string `required` by substring). */
const VALUE_OK: Record<string, (v: unknown) => boolean> = {
  ...Object.fromEntries(
    [...NUMERIC, "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"].map((k) => [k, (v: unknown) => typeof v === "number"]),
  ),
  uniqueItems: (v) => typeof v === "boolean",
  pattern: (v) => typeof v === "string",
  properties: isObject,
  required: (v) => Array.isArray(v) && v.every((k) => typeof k === "string"),
  additionalProperties: (v) => typeof v === "boolean" || isObject(v),
};

function checkKeywords(schema: Json, kind: string, at: string): void {
  for (const [key, value] of Object.entries(schema)) {
    if (!KEYWORDS[kind]!.has(key)) {
      const typed = kind === "Unknown" && Object.values(KEYWORDS).some((k) => k.has(key));
      const hint = typed ? 'it needs a "type" beside it' : "use TypeBox (Type from relay/plugin)";
      throw new TypeError(`${at}/${key}: JSON Schema keyword ${JSON.stringify(key)} is not supported here; ${hint}`);
    }
    if (VALUE_OK[key] && !VALUE_OK[key](value)) throw new TypeError(`${at}/${key}: not a valid value for this keyword`);
  }
  const undeclared = ((schema.required as string[] | undefined) ?? []).filter((k) => !Object.hasOwn((schema.properties as Json | undefined) ?? {}, k));
  if (undeclared.length) throw new TypeError(`${at}/required: ${undeclared.join(", ")} must also be declared in properties`);
}

function tagged(schema: Json, kind: string, at: string): TSchema {
  checkKeywords(schema, kind, at);
  const out: Json = { ...schema, [Kind]: kind };
  if (kind === "Object") {
    const props = (schema.properties as Json | undefined) ?? {};
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromJsonSchema(v, `${at}/properties/${k}`)]));
    if (isObject(schema.additionalProperties)) out.additionalProperties = fromJsonSchema(schema.additionalProperties, `${at}/additionalProperties`);
  } else if (kind === "Array") {
    out.items = fromJsonSchema(schema.items ?? {}, `${at}/items`);
  } else if (kind === "Union") {
    if (!Array.isArray(schema.anyOf)) throw new TypeError(`${at}/anyOf: expected a list of schemas`);
    out.anyOf = schema.anyOf.map((s, i) => fromJsonSchema(s, `${at}/anyOf/${i}`));
  } else if (kind === "Literal" && typeof schema.const === "object" && schema.const !== null) {
    throw new TypeError(`${at}/const: only a string, number, boolean or null can be compared`);
  } else if (kind === "String" && schema.pattern !== undefined) {
    checkPattern(schema.pattern as string, `${at}/pattern`);
  }
  return out as TSchema;
}

/** A bad pattern is refused at load rather than thrown by the first check. */
function checkPattern(pattern: string, at: string): void {
  try {
    new RegExp(pattern);
  } catch (e) {
    throw new TypeError(`${at}: ${(e as Error).message}`);
  }
}
