// A strategy's options schema may be hand-written JSON Schema: every keyword is checked the way JSON
// Schema means it (by @cfworker/json-schema), and what would fail or be skipped at check time (a $ref
// that does not resolve, a bad pattern, an unknown format) is refused when the plugin loads.
import { describe, expect, test } from "bun:test";
import { definePlugin, type StrategyPlugin, Type } from "../../src/plugin/api.ts";
import { strategyOptionsProblem } from "../../src/plugin/options.ts";

const strategy = (options: Record<string, unknown>): StrategyPlugin =>
  definePlugin({ kind: "strategy", name: "js", options, plan: () => ({ candidates: [], mode: "fallback", reasons: [] }) });

const problem = (schema: Record<string, unknown>, value: Record<string, unknown>) => {
  const p = strategyOptionsProblem(strategy(schema), value);
  return p && `${p.path}: ${p.message}`;
};

describe("hand-written JSON Schema", () => {
  const schema = {
    type: "object",
    description: "options of js",
    properties: {
      models: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1, maxItems: 3 },
      budget: { type: "number", minimum: 0, exclusiveMaximum: 10 },
      retries: { type: "integer", maximum: 5 },
      mode: { enum: ["fast", "slow"] },
      label: { type: ["string", "null"], pattern: "^[a-z]+$" },
      weights: { type: "object", additionalProperties: { type: "number" } },
      pick: { anyOf: [{ type: "boolean" }, { const: "auto" }] },
    },
    required: ["models"],
    additionalProperties: false,
  };

  test("accepts what the schema allows", () => {
    expect(problem(schema, { models: ["a"] })).toBeUndefined();
    expect(problem(schema, { models: ["a", "b"], budget: 9.5, retries: 5, mode: "slow", label: null, weights: { a: 1 }, pick: "auto" })).toBeUndefined();
    expect(problem(schema, { models: ["a"], label: "abc", pick: false })).toBeUndefined();
  });

  test.each([
    [{}, "routing.strategies.js.models"],
    [{ models: [] }, "routing.strategies.js.models"],
    [{ models: ["a", ""] }, "routing.strategies.js.models[1]"],
    [{ models: ["a"], budget: 10 }, "routing.strategies.js.budget"],
    [{ models: ["a"], retries: 1.5 }, "routing.strategies.js.retries"],
    [{ models: ["a"], mode: "warp" }, "routing.strategies.js.mode"],
    [{ models: ["a"], label: "ABC" }, "routing.strategies.js.label"],
    [{ models: ["a"], weights: { a: "heavy" } }, "routing.strategies.js.weights.a"],
    [{ models: ["a"], pick: "manual" }, "routing.strategies.js.pick"],
    [{ models: ["a"], extra: 1 }, "routing.strategies.js.extra"],
  ])("refuses %j at its path", (value, path) => {
    expect(problem(schema, value)).toStartWith(`${path}: `);
  });

  test("each problem is named by its path with what was expected", () => {
    expect(problem(schema, {})).toBe("routing.strategies.js.models: expected required property");
    expect(problem(schema, { models: [] })).toBe("routing.strategies.js.models: expected array length >= 1");
    expect(problem(schema, { models: ["a", ""] })).toBe("routing.strategies.js.models[1]: expected string length >= 1");
    expect(problem(schema, { models: ["a"], budget: 10 })).toBe("routing.strategies.js.budget: expected number < 10");
    expect(problem(schema, { models: ["a"], retries: 1.5 })).toBe("routing.strategies.js.retries: expected integer");
    expect(problem(schema, { models: ["a"], mode: "warp" })).toBe('routing.strategies.js.mode: expected one of ["fast","slow"]');
    expect(problem(schema, { models: ["a"], label: 5 })).toBe("routing.strategies.js.label: expected string or null");
    expect(problem(schema, { models: ["a"], extra: 1 })).toBe("routing.strategies.js.extra: unexpected property");
  });
});

describe("keywords beyond the basic ones are enforced", () => {
  const refuses = (schema: Record<string, unknown>, bad: Record<string, unknown>, good: Record<string, unknown>) => {
    expect(problem(schema, good)).toBeUndefined();
    return problem(schema, bad);
  };

  test("oneOf, allOf and not", () => {
    const oneOf = { properties: { n: { oneOf: [{ type: "integer" }, { type: "number", maximum: 1 }] } } };
    expect(refuses(oneOf, { n: 0 }, { n: 5 })).toBe("routing.strategies.js.n: expected a value matching exactly one oneOf schema (2 match)");
    expect(problem(oneOf, { n: "x" })).toBe("routing.strategies.js.n: expected a value matching exactly one oneOf schema (0 match)");
    const allOf = { properties: { n: { allOf: [{ minimum: 1 }, { maximum: 3 }] } } };
    expect(refuses(allOf, { n: 4 }, { n: 2 })).toBe("routing.strategies.js.n: expected number <= 3");
    expect(refuses({ properties: { s: { not: { const: "" } } } }, { s: "" }, { s: "a" })).toBe('routing.strategies.js.s: expected a value not matching the "not" schema');
  });

  test("format", () => {
    const schema = { properties: { url: { type: "string", format: "uri" }, at: { format: "date-time" } } };
    expect(refuses(schema, { url: "not a uri" }, { url: "https://example.com/x", at: "2025-01-02T03:04:05Z" })).toBe('routing.strategies.js.url: expected format "uri"');
    expect(problem(schema, { at: "yesterday" })).toBe('routing.strategies.js.at: expected format "date-time"');
  });

  test("$ref within the schema, $defs and definitions", () => {
    const schema = { $defs: { model: { type: "string", minLength: 1 } }, properties: { chain: { type: "array", items: { $ref: "#/$defs/model" } } } };
    expect(refuses(schema, { chain: ["a", ""] }, { chain: ["a"] })).toBe("routing.strategies.js.chain[1]: expected string length >= 1");
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", definitions: { n: { type: "integer" } }, properties: { n: { $ref: "#/definitions/n" } } };
    expect(refuses(draft7, { n: 1.5 }, { n: 1 })).toBe("routing.strategies.js.n: expected integer");
  });

  test("patternProperties, propertyNames, dependentRequired, contains, minProperties, if/then, uniqueItems, prefixItems, multipleOf", () => {
    const map = { type: "object", patternProperties: { "^x-": { type: "number" } }, additionalProperties: false };
    expect(refuses(map, { "x-a": "1" }, { "x-a": 1 })).toBe("routing.strategies.js.x-a: expected number");
    expect(problem(map, { y: 1 })).toBe("routing.strategies.js.y: unexpected property");
    expect(refuses({ propertyNames: { maxLength: 3 } }, { long: 1 }, { abc: 1 })).toBe('routing.strategies.js: property name "long" does not match schema');
    expect(refuses({ dependentRequired: { low: ["high"] } }, { low: 1 }, { low: 1, high: 2 })).toBe('routing.strategies.js: instance has "low" but does not have "high"');
    expect(refuses({ properties: { xs: { contains: { const: 1 } } } }, { xs: [2] }, { xs: [2, 1] })).toBe("routing.strategies.js.xs: array does not contain item matching schema");
    expect(refuses({ minProperties: 2 }, { a: 1 }, { a: 1, b: 2 })).toBe("routing.strategies.js: expected property count >= 2");
    const cond = { if: { properties: { mode: { const: "pinned" } }, required: ["mode"] }, then: { required: ["target"] } };
    expect(refuses(cond, { mode: "pinned" }, { mode: "pinned", target: "a" })).toBe("routing.strategies.js.target: expected required property");
    expect(refuses({ properties: { xs: { uniqueItems: true } } }, { xs: [1, 2, 1] }, { xs: [1, 2] })).toBe(
      "routing.strategies.js.xs: expected unique items (indexes 0 and 2 are equal)",
    );
    const pair = { properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } } };
    expect(refuses(pair, { pair: ["a", "b"] }, { pair: ["a", 1] })).toBe("routing.strategies.js.pair[1]: expected number");
    expect(problem(pair, { pair: ["a", 1, 2] })).toBe("routing.strategies.js.pair[2]: unexpected item");
    expect(refuses({ properties: { n: { multipleOf: 0.5 } } }, { n: 0.3 }, { n: 1.5 })).toBe("routing.strategies.js.n: expected a multiple of 0.5");
  });

  test("a draft 04 schema is read as draft 04 (boolean exclusiveMinimum)", () => {
    const schema = { $schema: "http://json-schema.org/draft-04/schema#", properties: { n: { minimum: 3, exclusiveMinimum: true } } };
    expect(refuses(schema, { n: 3 }, { n: 3.5 })).toBe("routing.strategies.js.n: expected number > 3");
  });

  test("boolean schemas", () => {
    expect(problem(true as never, { anything: 1 })).toBeUndefined();
    expect(problem(false as never, {})).toBe("routing.strategies.js: not allowed");
  });
});

describe("a schema Relay cannot check fails the load", () => {
  test.each([
    [{ $ref: "#/definitions/x" }, '/$ref: "#/definitions/x" does not resolve within the schema'],
    [{ properties: { a: { $ref: "https://example.com/a.json" } } }, '/properties/a/$ref: "https://example.com/a.json" does not resolve within the schema'],
    [{ type: "object", properties: { a: { type: "string", format: "colour" } } }, '/properties/a/format: unknown format "colour"'],
    [{ type: "string", pattern: "(" }, "/pattern: Invalid regular expression"],
    [{ type: "object", patternProperties: { "[": {} } }, "/patternProperties/[: Invalid regular expression"],
    [{ properties: { a: { $dynamicRef: "#node" } } }, "/properties/a/$dynamicRef: not supported; use $ref"],
    [{ $schema: "http://json-schema.org/draft-06/schema#" }, '/$schema: "http://json-schema.org/draft-06/schema#" is not draft 2020-12, 2019-09, 07 or 04'],
    [["type", "object"], "/: a schema must be an object or a boolean"],
    [{ type: "object", default: () => ({}) }, "/: a schema must be plain JSON data"],
  ])("refuses %j at load", (schema, message) => {
    expect(() => strategy(schema as Record<string, unknown>)).toThrow(`strategy "js": options schema ${message}`);
  });

  test("the declared schema is neither changed nor needed unfrozen", () => {
    const declared = Object.freeze({ type: "object", properties: Object.freeze({ a: Object.freeze({ $ref: "#/$defs/s" }) }), $defs: Object.freeze({ s: Object.freeze({ type: "string" }) }) });
    expect(problem(declared, { a: 1 })).toBe("routing.strategies.js.a: expected string");
    expect(Object.getOwnPropertyNames(declared.properties.a)).toEqual(["$ref"]);
  });
});

describe("TypeBox schemas", () => {
  test("are used as they are, and checkOptions runs after the schema passes", () => {
    const plugin = definePlugin({
      kind: "strategy",
      name: "tb",
      options: Type.Object({ low: Type.Number(), high: Type.Number() }),
      checkOptions: (o: { low: number; high: number }) => (o.low > o.high ? "low must not exceed high" : undefined),
      plan: () => ({ candidates: [], mode: "fallback" as const, reasons: [] }),
    });
    expect(strategyOptionsProblem(plugin, { low: 1 })).toEqual({ path: "routing.strategies.tb.high", message: "expected required property" });
    expect(strategyOptionsProblem(plugin, { low: 2, high: 1 })).toEqual({ path: "routing.strategies.tb", message: "low must not exceed high" });
    expect(strategyOptionsProblem(plugin, { low: 1, high: 2 })).toBeUndefined();
  });

  test("checked as the JSON Schema they are: closed objects, optional properties, records, unions, literals", () => {
    const plugin = definePlugin({
      kind: "strategy",
      name: "tb",
      options: Type.Object(
        {
          chain: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
          chains: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
          retries: Type.Optional(Type.Integer({ minimum: 0 })),
          mode: Type.Optional(Type.Union([Type.Literal("fast"), Type.Literal("slow")])),
        },
        { additionalProperties: false },
      ),
      plan: () => ({ candidates: [], mode: "fallback" as const, reasons: [] }),
    });
    const at = (value: Record<string, unknown>) => {
      const p = strategyOptionsProblem(plugin, value);
      return p && `${p.path}: ${p.message}`;
    };
    expect(at({})).toBeUndefined();
    expect(at({ chain: ["a"], chains: { "gpt-4.1": ["b"] }, retries: 0, mode: "slow" })).toBeUndefined();
    expect(at({ chian: ["a"] })).toBe("routing.strategies.tb.chian: unexpected property");
    expect(at({ chain: [] })).toBe("routing.strategies.tb.chain: expected array length >= 1");
    expect(at({ chains: { "gpt-4.1": [1] } })).toBe('routing.strategies.tb.chains["gpt-4.1"][0]: expected string');
    expect(at({ retries: -1 })).toBe("routing.strategies.tb.retries: expected number >= 0");
    expect(at({ retries: 0.5 })).toBe("routing.strategies.tb.retries: expected integer");
    expect(at({ mode: "warp" })).toBe("routing.strategies.tb.mode: expected a value matching at least one anyOf schema");
  });

  test("a checkOptions that throws is a problem, not a crash", () => {
    const plugin = definePlugin({
      kind: "strategy",
      name: "throws",
      checkOptions: () => {
        throw new Error("cannot read options");
      },
      plan: () => ({ candidates: [], mode: "fallback" as const, reasons: [] }),
    });
    expect(strategyOptionsProblem(plugin, {})).toEqual({ path: "routing.strategies.throws", message: "cannot read options" });
  });
});
