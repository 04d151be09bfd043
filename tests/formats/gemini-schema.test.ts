import { describe, expect, test } from "bun:test";
import { geminiSchemaToJsonSchema, sanitizeGeminiSchema } from "../../src/core/formats/gemini-schema.ts";

describe("sanitizeGeminiSchema", () => {
  test("strips keywords Gemini rejects with a 400 ($schema, additionalProperties, default, examples, exclusive bounds)", () => {
    const out = sanitizeGeminiSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      properties: {
        n: { type: "integer", default: 3, examples: [1], exclusiveMinimum: 0, minimum: 1, maximum: 9 },
      },
      required: ["n"],
    });
    expect(out).toEqual({
      type: "object",
      properties: { n: { type: "integer", minimum: 1, maximum: 9 } },
      required: ["n"],
    });
  });

  test("a nullable type union becomes type + nullable", () => {
    expect(sanitizeGeminiSchema({ type: ["string", "null"], description: "d" })).toEqual({
      type: "string",
      nullable: true,
      description: "d",
    });
  });

  test("anyOf with a null member is unwrapped to the single real member, marked nullable", () => {
    const out = sanitizeGeminiSchema({
      description: "when",
      anyOf: [{ type: "string", format: "date-time" }, { type: "null" }],
    });
    expect(out).toEqual({ type: "string", format: "date-time", nullable: true, description: "when" });
  });

  test("a multi-type union becomes anyOf, since Gemini has no type lists", () => {
    const out = sanitizeGeminiSchema({ type: ["string", "number", "null"] });
    expect(out).toEqual({ anyOf: [{ type: "string" }, { type: "number" }], nullable: true });
  });

  test("$defs references are inlined, including nested arrays of referenced objects", () => {
    const out = sanitizeGeminiSchema({
      type: "object",
      $defs: {
        Item: {
          type: "object",
          additionalProperties: false,
          properties: { sku: { type: "string" }, qty: { type: "integer" } },
          required: ["sku"],
        },
      },
      properties: {
        orders: { type: "array", items: { type: "array", items: { $ref: "#/$defs/Item" } } },
        primary: { $ref: "#/definitions/Item", description: "main one" },
      },
      definitions: { Item: { type: "object", properties: { sku: { type: "string" } } } },
    });
    expect(out.properties).toEqual({
      orders: {
        type: "array",
        items: {
          type: "array",
          items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer" } }, required: ["sku"] },
        },
      },
      // $defs wins over definitions when both name the same schema
      primary: {
        type: "object",
        description: "main one",
        properties: { sku: { type: "string" }, qty: { type: "integer" } },
        required: ["sku"],
      },
    });
    expect(JSON.stringify(out)).not.toContain("$ref");
    expect(JSON.stringify(out)).not.toContain("$defs");
  });

  test("a recursive $ref does not loop forever: the cycle becomes a free-form object", () => {
    const out = sanitizeGeminiSchema({
      $defs: { Node: { type: "object", properties: { value: { type: "string" }, next: { $ref: "#/$defs/Node" } } } },
      $ref: "#/$defs/Node",
    });
    expect(out).toEqual({
      type: "object",
      properties: { value: { type: "string" }, next: { type: "object" } },
    });
  });

  test("const becomes a single-value string enum", () => {
    expect(sanitizeGeminiSchema({ const: "fixed" })).toEqual({ type: "string", enum: ["fixed"] });
  });

  test("numeric enums are dropped rather than sent (Gemini enums are string-only)", () => {
    expect(sanitizeGeminiSchema({ type: "integer", enum: [1, 2, 3] })).toEqual({ type: "integer" });
  });

  test("an enum containing null keeps the strings and becomes nullable", () => {
    expect(sanitizeGeminiSchema({ enum: ["a", "b", null] })).toEqual({ type: "string", enum: ["a", "b"], nullable: true });
  });

  test("unsupported formats are removed, supported ones kept", () => {
    const out = sanitizeGeminiSchema({
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        at: { type: "string", format: "date-time" },
        ratio: { type: "number", format: "double" },
      },
    });
    expect(out.properties).toEqual({
      email: { type: "string" },
      at: { type: "string", format: "date-time" },
      ratio: { type: "number", format: "double" },
    });
  });

  test("empty object properties are removed (Gemini rejects an OBJECT with empty properties)", () => {
    expect(sanitizeGeminiSchema({ type: "object", properties: {} })).toEqual({ type: "object" });
    expect(sanitizeGeminiSchema({ type: "object", properties: { meta: { type: "object", properties: {} } } })).toEqual({
      type: "object",
      properties: { meta: { type: "object" } },
    });
  });

  test("required names without a matching property are dropped", () => {
    const out = sanitizeGeminiSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a", "ghost"] });
    expect(out.required).toEqual(["a"]);
  });

  test("allOf members are merged into one object", () => {
    const out = sanitizeGeminiSchema({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { properties: { b: { type: "number" } }, required: ["b"] },
      ],
    });
    expect(out).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a", "b"],
    });
  });

  test("tuple items become an anyOf item schema", () => {
    const out = sanitizeGeminiSchema({ type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] });
    expect(out).toEqual({ type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } });
  });
});

describe("geminiSchemaToJsonSchema", () => {
  test("upper-case OpenAPI types and nullable become JSON Schema", () => {
    const out = geminiSchemaToJsonSchema({
      type: "OBJECT",
      properties: {
        city: { type: "STRING", nullable: true },
        unit: { type: "STRING", format: "enum", enum: ["C", "F"] },
        days: { type: "ARRAY", items: { type: "INTEGER" } },
      },
      required: ["city"],
    });
    expect(out).toEqual({
      type: "object",
      properties: {
        city: { type: ["string", "null"] },
        unit: { type: "string", enum: ["C", "F"] },
        days: { type: "array", items: { type: "integer" } },
      },
      required: ["city"],
    });
  });

  test("sanitizing the converted schema gives back the Gemini schema (lower-cased)", () => {
    const gemini = {
      type: "object",
      properties: { a: { type: "string", nullable: true }, b: { type: "array", items: { type: "number" } } },
      required: ["a"],
    };
    expect(sanitizeGeminiSchema(geminiSchemaToJsonSchema(gemini))).toEqual(gemini);
  });
});
