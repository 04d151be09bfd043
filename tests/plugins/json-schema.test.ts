// A strategy's options schema may be hand-written JSON Schema: it is checked the way JSON Schema
// means it, and a keyword Relay would not check is refused when the plugin loads, never ignored.
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

  test.each([
    [{ type: "object", properties: { a: { oneOf: [] } } }, '/properties/a/oneOf: JSON Schema keyword "oneOf"'],
    [{ type: "object", properties: { a: { type: "string", format: "uri" } } }, '/properties/a/format: JSON Schema keyword "format"'],
    [{ $ref: "#/definitions/x" }, '/$ref: JSON Schema keyword "$ref"'],
    [{ type: "object", patternProperties: {} }, '/patternProperties: JSON Schema keyword "patternProperties"'],
    [{ type: "thing" }, '/type: unknown type "thing"'],
    [{ type: "string", pattern: "(" }, "/pattern: Invalid regular expression"],
    [{ const: { a: 1 } }, "/const: only a string, number, boolean or null"],
    [{ type: "object", required: "name" }, "/required: not a valid value"],
    [{ type: "integer", minimum: "5" }, "/minimum: not a valid value"],
    [{ type: "object", required: ["name"] }, "/required: name must also be declared in properties"],
    [{ properties: {} }, '/properties: JSON Schema keyword "properties" is not supported here; it needs a "type" beside it'],
    [{ type: ["string", "null"], minItems: 1 }, '/minItems: JSON Schema keyword "minItems" applies to none of the types'],
  ])("refuses a schema it cannot check at load: %j", (schema, message) => {
    expect(() => strategy(schema)).toThrow(`strategy "js": options schema ${message}`);
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
