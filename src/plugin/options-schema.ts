// A strategy's options schema, checked with @cfworker/json-schema: plain JSON Schema (draft 2020-12
// unless `$schema` names 2019-09, 07 or 04) or TypeBox, whose schemas are JSON Schema plus Symbol-keyed
// tags the validator never reads. The validator interprets the schema and generates no code, so it runs
// where `eval` and `new Function` are barred (Workers, Deno with restricted permissions).
import { dereference, escapePointer, format, type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";

const DRAFTS: Record<string, SchemaDraft> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

/**
 * A validator for a declared schema; throws a TypeError naming the JSON pointer of what would make the
 * schema fail or mean less than it says at check time: the library checks values, not schemas.
 */
export function compileSchema(declared: unknown): Validator {
  if (typeof declared === "boolean") return new Validator(declared);
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) throw new TypeError("/: a schema must be an object or a boolean");
  let schema: Schema;
  try {
    // A copy: the library marks the schemas it reads, and the plugin's object may be frozen or change later.
    schema = structuredClone(declared) as Schema;
  } catch {
    throw new TypeError("/: a schema must be plain JSON data");
  }
  const draft = schema.$schema === undefined ? "2020-12" : DRAFTS[String(schema.$schema).replace(/#$/, "")];
  if (!draft) throw new TypeError(`/$schema: ${JSON.stringify(schema.$schema)} is not draft 2020-12, 2019-09, 07 or 04`);
  const lookup = library(() => dereference(schema));
  // Every subschema is listed under its JSON pointer (URI-encoded), some also under an anchor or $id.
  const seen = new Set<unknown>();
  for (const [uri, sub] of Object.entries(lookup)) {
    const pointer = uri.includes("#") ? uri.slice(uri.indexOf("#") + 1) : "";
    if (seen.has(sub) || (pointer !== "" && !pointer.startsWith("/"))) continue;
    seen.add(sub);
    checkSubschema(sub, decodeURIComponent(pointer), lookup);
  }
  const validator = library(() => new Validator(schema, draft));
  library(() => validator.validate({})); // a probe: what the library throws on, it throws here rather than per check
  return validator;
}

/** A library call whose throw (a duplicate $id, say) becomes a problem with the schema as a whole. */
function library<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw new TypeError(`/: ${(e as Error).message}`);
  }
}

/** What the library would throw on when a value reaches it, or silently skip. */
function checkSubschema(sub: Schema | boolean, at: string, lookup: Record<string, Schema | boolean>): void {
  if (typeof sub !== "object") return;
  const fail = (key: string, why: string) => {
    throw new TypeError(`${at}/${key}: ${why}`);
  };
  if (sub.__absolute_ref__ !== undefined && lookup[sub.__absolute_ref__] === undefined) fail("$ref", `${JSON.stringify(sub.$ref)} does not resolve within the schema`);
  if ("$dynamicRef" in sub) fail("$dynamicRef", "not supported; use $ref");
  if (sub.format !== undefined && !Object.hasOwn(format, sub.format)) fail("format", `unknown format ${JSON.stringify(sub.format)}`);
  const patterns = Object.keys(sub.patternProperties ?? {}).map((p) => [`patternProperties/${escapePointer(p)}`, p]);
  for (const [key, pattern] of sub.pattern === undefined ? patterns : [["pattern", sub.pattern], ...patterns]) {
    try {
      new RegExp(pattern, "u");
    } catch (e) {
      fail(key!, (e as Error).message);
    }
  }
}

export interface SchemaProblem {
  /** Path segments into the checked value (object keys and array indexes). */
  at: string[];
  message: string;
}

// Errors that only say a subschema failed; the subschema's own error follows them in the list.
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "if",
  "dependentSchemas",
]);

/** The first problem with `value`, or undefined; a value the library cannot read is a problem, not a throw. */
export function firstProblem(validator: Validator, value: unknown): SchemaProblem | undefined {
  let errors: OutputUnit[];
  try {
    errors = validator.validate(value).errors;
  } catch (e) {
    return { at: [], message: `cannot be checked: ${(e as Error).message}` };
  }
  const index = errors.findIndex((e) => !WRAPPERS.has(e.keyword));
  const unit = errors[Math.max(index, 0)];
  if (!unit) return undefined;
  const at = unit.instanceLocation.split("/").slice(1).map((s) => decodeURIComponent(s).replaceAll("~1", "/").replaceAll("~0", "~"));
  const missing = unit.keyword === "required" ? /required property "(.*)"\.$/.exec(unit.error)?.[1] : undefined;
  return missing === undefined ? { at, message: expected(unit, errors[index - 1]?.keyword) } : { at: [...at, missing], message: "expected required property" };
}

// keyword → what the schema's number (the last one in the library's sentence) bounds.
const BOUNDS: Record<string, string> = {
  minLength: "string length >=",
  maxLength: "string length <=",
  minItems: "array length >=",
  maxItems: "array length <=",
  minProperties: "property count >=",
  maxProperties: "property count <=",
  minimum: "number >=",
  maximum: "number <=",
  exclusiveMinimum: "number >",
  exclusiveMaximum: "number <",
  multipleOf: "a multiple of",
};

/** The library's sentences name the schema's value: keyword → what it expected, or undefined when the sentence does not parse. */
const EXPECTED: Record<string, (error: string) => string | undefined> = {
  type: (e) => /Expected "(.*)"\.$/.exec(e)?.[1]?.split('", "').join(" or "),
  const: (e) => /does not match (.*)\.$/.exec(e)?.[1],
  enum: (e) => ifMatched(/any of (.*)\.$/.exec(e), (v) => `one of ${v}`),
  format: (e) => ifMatched(/format "(.*)"\.$/.exec(e), (v) => `format "${v}"`),
  pattern: () => "string matching the schema's pattern",
  anyOf: () => "a value matching at least one anyOf schema",
  oneOf: (e) => ifMatched(/\((\d+) matches\)/.exec(e), (v) => `a value matching exactly one oneOf schema (${v} match)`),
  not: () => 'a value not matching the "not" schema',
  uniqueItems: (e) => ifMatched(/(indexes \d+ and \d+)/.exec(e), (v) => `unique items (${v} are equal)`),
  ...Object.fromEntries(
    Object.entries(BOUNDS).map(([keyword, bound]) => [
      keyword,
      // Draft 04 words an exclusive minimum or maximum "less/greater than or equal to".
      (e: string) => ifMatched(/(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\D*$/.exec(e), (v) => `${/or equal to/.test(e) && /^m..imum$/.test(keyword) ? bound.replace("=", "") : bound} ${v}`),
    ]),
  ),
};

const ifMatched = (m: RegExpExecArray | null, make: (v: string) => string): string | undefined => (m ? make(m[1]!) : undefined);

/** A short "expected ..." for the keyword; the library's own words when it has none. `parent`: the wrapper that led here. */
function expected({ keyword, error }: OutputUnit, parent = ""): string {
  // A `false` schema, most often `additionalProperties: false`.
  if (keyword === "false") return /properties$/i.test(parent) ? "unexpected property" : /items$/i.test(parent) ? "unexpected item" : "not allowed";
  const what = Object.hasOwn(EXPECTED, keyword) ? EXPECTED[keyword]!(error) : undefined;
  return what === undefined ? error.charAt(0).toLowerCase() + error.slice(1).replace(/\.$/, "") : `expected ${what}`;
}
