import { expect, test } from "bun:test";
import fc from "fast-check";
import { spliceModel } from "../../src/core/router/vendor-call.ts";

test("the model value is replaced in place; every other byte is kept", () => {
  const raw = '{ "messages" : [ {"role":"user","content":"hi"} ],\n  "model" :  "svc:auto", "stream":true }';
  expect(spliceModel(raw, "svc:auto", "claude-haiku-4-5")).toBe('{ "messages" : [ {"role":"user","content":"hi"} ],\n  "model":"claude-haiku-4-5", "stream":true }');
});

test("an ambiguous body (the same model pair twice) is left to re-serialisation", () => {
  const raw = '{"model":"x","metadata":{"model":"x"},"messages":[]}';
  expect(spliceModel(raw, "x", "y")).toBeUndefined();
});

test("a `model` key with another value, or the word in content, does not count", () => {
  const raw = '{"metadata":{"model":"other"},"messages":[{"role":"user","content":"\\"model\\" is a word"}],"model":"x"}';
  expect(JSON.parse(spliceModel(raw, "x", "y")!)).toEqual({ ...JSON.parse(raw), model: "y" });
});

test("property: splicing equals setting the top-level model, for any body the client could send", () => {
  const name = fc.string({ minLength: 1, maxLength: 20 });
  fc.assert(
    fc.property(name, name, fc.dictionary(fc.string().filter((k) => k !== "model"), fc.jsonValue()), (from, to, rest) => {
      const raw = JSON.stringify({ ...rest, model: from });
      const out = spliceModel(raw, from, to);
      if (out === undefined) return; // ambiguous: the caller re-serialises instead
      expect(JSON.parse(out)).toEqual({ ...JSON.parse(raw), model: to });
    }),
  );
});
