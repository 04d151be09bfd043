// Issue 34, item 7: the pieces behind the bad-names attacks. The header
// encoder, the wire-name check, the depth bounds of walks over a client's JSON,
// own-property asset lookups, and (through a real Relay with a misbehaving
// strategy plugin) a plan whose tier could not become a header: refused before
// any vendor call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_JSON_DEPTH, MAX_SCHEMA_DEPTH, estimateText, stringifyClient } from "../../src/core/client-json.ts";
import { sanitizeGeminiSchema } from "../../src/core/formats/gemini-schema.ts";
import { CodecError } from "../../src/core/formats/types.ts";
import { HEADER_VALUE_MAX, headerValue } from "../../src/core/header-value.ts";
import { checkWireNames, clientInputError } from "../../src/core/router/validate.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import { ASSETS } from "../../src/surfaces/dashboard/assets.ts";
import { docsAsset } from "../../src/surfaces/docs/assets.ts";
import { CoreError } from "../../src/core/errors.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

const deepObject = (depth: number) => JSON.parse('{"a":'.repeat(depth) + "1" + "}".repeat(depth));
const deepSchema = (depth: number) => JSON.parse('{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' + "}}".repeat(depth));

describe("headerValue", () => {
  test("keeps printable ASCII, percent-encodes the rest as UTF-8, and decodes back", () => {
    expect(headerValue("claude-haiku-4-5")).toBe("claude-haiku-4-5");
    expect(headerValue("openai:модель")).toBe("openai:%D0%BC%D0%BE%D0%B4%D0%B5%D0%BB%D1%8C");
    expect(headerValue("a\u0000b\r\nx-evil: 1")).toBe("a%00b%0D%0Ax-evil: 1");
    expect(headerValue("50%")).toBe("50%25");
    expect(headerValue("\u001b[31m\u007f")).toBe("%1B[31m%7F");
  });

  test("any string gives a value Headers accepts, no longer than the cap, that decodes to the text or its prefix", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 400 }), fc.string({ unit: "grapheme", maxLength: 200 })), (s) => {
        const v = headerValue(s);
        expect(() => new Headers({ "x-svc-a": v })).not.toThrow();
        expect(v.length).toBeLessThanOrEqual(HEADER_VALUE_MAX);
        const decoded = decodeURIComponent(v);
        if (v.endsWith("%E2%80%A6") && !s.endsWith("…")) expect(s.toWellFormed().startsWith(decoded.slice(0, -1))).toBe(true);
        else expect(decoded).toBe(s.toWellFormed());
      }),
      { numRuns: 500 },
    );
  });
});

describe("checkWireNames", () => {
  const refused = (body: Record<string, unknown>) => {
    try {
      checkWireNames(body);
      return undefined;
    } catch (e) {
      return { status: (e as CoreError).status, parameter: (e as CoreError).extra.details?.parameter };
    }
  };

  test("a control character in the model or a top-level key is a 400 naming it", () => {
    for (const model of ["gpt-4o\u0000", "x\r\n", "\u0007", "a\u007f", "a\u0085"]) expect(refused({ model, messages: [] })).toEqual({ status: 400, parameter: "model" });
    expect(refused({ model: "gpt-4o", messages: [], "x\u0000y": 1 })).toEqual({ status: 400, parameter: "x\u0000y" });
  });

  test("non-Latin names, printable names and nested keys pass", () => {
    expect(refused({ model: "модель", messages: [], "ключ": 1, tools: [{ parameters: { properties: { "a\u0000b": {} } } }] })).toBeUndefined();
    expect(refused({ model: " gpt-4o ", messages: [] })).toBeUndefined();
  });
});

describe("walks over a client's JSON are bounded", () => {
  test("serialising a value nested past MAX_JSON_DEPTH is a CodecError (the client's 400), refused at once", () => {
    const deep = deepObject(100_000);
    const started = performance.now();
    expect(() => stringifyClient(deep, "tools")).toThrow(/tools is nested too deeply \(over 128 levels\)/);
    expect(performance.now() - started).toBeLessThan(50);
    expect(() => stringifyClient(deepObject(MAX_JSON_DEPTH + 1), "tools")).toThrow(CodecError);
    expect(stringifyClient(deepObject(MAX_JSON_DEPTH), "tools")).toBe(JSON.stringify(deepObject(MAX_JSON_DEPTH)));
    expect(clientInputError(new CodecError("too deep", "tools"))?.status).toBe(400);
    expect(clientInputError(new TypeError("x"))).toBeUndefined();
  });

  test("an estimate counts a too-deep value down to MAX_JSON_DEPTH instead of refusing it", () => {
    const shallow = { a: { b: [1, "x"] } };
    expect(estimateText(shallow)).toBe(JSON.stringify(shallow));
    const text = estimateText(deepObject(100_000));
    expect(text.startsWith('{"a":'.repeat(MAX_JSON_DEPTH))).toBe(true);
    expect(text.length).toBeLessThan(MAX_JSON_DEPTH * 7);
    const req = { messages: [], tools: [{ name: "t", parameters: deepObject(100_000) }] } as never;
    expect(estimateTokens(req, (t) => t.length)).toBeGreaterThan(MAX_JSON_DEPTH * 5);
  });

  test("the Gemini rewrite stops at MAX_SCHEMA_DEPTH levels", () => {
    expect(() => sanitizeGeminiSchema(deepSchema(MAX_SCHEMA_DEPTH - 2))).not.toThrow();
    expect(() => sanitizeGeminiSchema(deepSchema(MAX_SCHEMA_DEPTH + 1))).toThrow(/nested too deeply/);
    expect(() => sanitizeGeminiSchema(deepSchema(100_000))).toThrow(CodecError);
  });

  test("the Gemini rewrite stops a $ref fan-out that would expand exponentially", () => {
    // d0 → two d1 → four d2 … → 2^30 nodes if inlined without a bound.
    const $defs: Record<string, unknown> = { d30: { type: "string" } };
    for (let i = 0; i < 30; i++) $defs[`d${i}`] = { type: "object", properties: { l: { $ref: `#/$defs/d${i + 1}` }, r: { $ref: `#/$defs/d${i + 1}` } } };
    const started = performance.now();
    expect(() => sanitizeGeminiSchema({ $ref: "#/$defs/d0", $defs })).toThrow(/expands to over/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("a $ref or a type named after an Object.prototype member is not looked up there", () => {
    expect(sanitizeGeminiSchema({ type: "object", properties: { a: { $ref: "#/$defs/constructor" }, b: { type: "constructor", format: "x" } } })).toEqual({
      type: "object",
      properties: { a: { type: "object" }, b: { type: "constructor" } },
    });
  });
});

test("asset lookups find own entries only", async () => {
  for (const name of ["__proto__", "constructor", "hasOwnProperty", "toString"]) {
    expect(ASSETS[name]).toBeUndefined();
    expect(docsAsset(name)).toBeUndefined();
  }
  expect(ASSETS["app.js"]?.contentType).toContain("javascript");
  expect((await docsAsset("init.js"))?.contentType).toContain("javascript");
});

describe("a strategy plugin's plan whose text becomes headers (an odd tier, a bad one)", () => {
  let home: string;
  let relay: TestRelay;
  let openai: FakeVendor;
  beforeAll(async () => {
    openai = await startFakeVendor("openai");
    home = mkdtempSync(join(tmpdir(), "relay-bad-names-"));
    mkdirSync(join(home, "plugins"));
    const plugin = (name: string, tier: string, reasons: string) => `import { definePlugin } from "relay/plugin";
export default definePlugin({
  kind: "strategy",
  name: ${JSON.stringify(name)},
  models: [${JSON.stringify(`svc:${name}`)}],
  plan: () => ({ candidates: ["gpt-4o-mini"], mode: "fallback", tier: ${tier}, reasons: [${reasons}] }),
});
`;
    writeFileSync(join(home, "plugins", "odd.ts"), plugin("odd", JSON.stringify("тир\u0007"), JSON.stringify("why\r\nx-evil: 1 — 💥")));
    writeFileSync(join(home, "plugins", "broken.ts"), plugin("broken", "42", '"x"'));
    writeFileSync(join(home, "config.json"), JSON.stringify({ pluginsDirs: [join(home, "plugins")] }));
    relay = await startRelay({ home, env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "k" } });
  });
  afterAll(async () => {
    await relay?.stop();
    await openai?.close();
    rmSync(home, { recursive: true, force: true });
  });

  const chat = (model: string, stream = false) =>
    fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "hi" }] }),
    });
  const loggedStatus = async (id: string | null) => {
    await relay.relay.writer.flush();
    return (await relay.relay.store.runs.getRun(id ?? ""))?.status;
  };

  test("plugin text in x-svc-* headers is encoded, not mangled", async () => {
    const res = await chat("svc:odd");
    expect(res.status).toBe(200);
    expect(decodeURIComponent(res.headers.get("x-svc-complexity-tier")!)).toBe("тир\u0007");
    expect(decodeURIComponent(res.headers.get("x-svc-routing-reasons")!)).toBe("why\r\nx-evil: 1 — 💥");
    expect(res.headers.get("x-evil")).toBeNull();
  });

  // The plan's tier would have become a header that cannot be built: the plan is refused before
  // any vendor call, so no answer the client cannot receive is paid for and no run is logged as served.
  for (const stream of [false, true]) {
    test(`a ${stream ? "stream" : "whole answer"}: the client gets a 500 naming the plan's fault, and no vendor is called`, async () => {
      openai.reset();
      const res = await chat("svc:broken", stream);
      const body = JSON.parse(await res.text());
      expect(res.status).toBe(500);
      expect(body.error.code).toBe("strategy_error");
      expect(body.error.message).toBe('Routing strategy "broken" returned an invalid plan: tier must be a string');
      expect(openai.requests).toHaveLength(0);
      expect(await loggedStatus(res.headers.get("x-svc-request-id"))).toBeUndefined();
      expect(openai.openConnections()).toBe(0);
    });
  }
});
