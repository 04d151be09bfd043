// The Gemini codec's client side: the URL's model and stream flag handed in with the body, the
// model-method path, and Relay's own errors in Google's shape.
import { describe, expect, test } from "bun:test";
import { CoreError } from "../../src/core/errors.ts";
import { encodeRelayError } from "../../src/core/formats/gemini/errors.ts";
import { geminiCodec } from "../../src/core/formats/gemini/index.ts";
import { geminiPath } from "../../src/core/formats/gemini/path.ts";

const contents = [{ role: "user", parts: [{ text: "hi" }] }];

describe("decodeRequest with the URL's facts", () => {
  test("model and stream come from the members the surface adds, and are never forwarded as extra", () => {
    const ir = geminiCodec.decodeRequest({ model: "claude-haiku-4-5", stream: true, contents, safetySettings: [] });
    expect(ir).toMatchObject({ model: "claude-haiku-4-5", stream: true });
    expect(ir.extra).toEqual({ safetySettings: [] });
    const encoded = geminiCodec.encodeRequest(ir, { model: "gemini-2.5-flash" }).body;
    expect(Object.keys(encoded).sort()).toEqual(["contents", "safetySettings"]);
  });

  test("without them (a body as Google defines it) the model is empty and the call not streamed", () => {
    expect(geminiCodec.decodeRequest({ contents })).toMatchObject({ model: "", stream: false });
  });
});

describe("geminiPath", () => {
  test.each([
    ["/v1beta/models/gemini-2.5-flash:generateContent", { model: "gemini-2.5-flash", method: "generateContent" }],
    ["/v1/models/gpt-4o:streamGenerateContent", { model: "gpt-4o", method: "streamGenerateContent" }],
    ["/v1beta/models/openai:gpt-4o:countTokens", { model: "openai:gpt-4o", method: "countTokens" }],
    ["/v1beta/models/openrouter/meta-llama/x:generateContent", { model: "openrouter/meta-llama/x", method: "generateContent" }],
    ["/v1beta/models/:generateContent", { model: "", method: "generateContent" }],
  ])("%s", (path, expected) => {
    expect(geminiPath(path)).toEqual(expected);
  });

  test.each(["/v1beta/models", "/v1beta/models/gemini-2.5-flash", "/v1/models", "/v1/chat/completions", "/x/v1beta/models/a:generateContent"])("%s is not one", (path) => {
    expect(geminiPath(path)).toBeUndefined();
  });
});

describe("encodeRelayError", () => {
  test("Google's status name for the HTTP status, Relay's code as the ErrorInfo reason", () => {
    const err = new CoreError(400, "model_not_found", "Model not found", { details: { parameter: "model", provided: "x", expected: "a model id" } });
    expect(encodeRelayError(err)).toEqual({
      error: {
        code: 400,
        message: "Model not found",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "model_not_found", domain: "relay", metadata: { parameter: "model", expected: "a model id" } }],
      },
    });
  });

  test.each([
    [401, undefined, "UNAUTHENTICATED"],
    [429, "rate_limit_error", "RESOURCE_EXHAUSTED"],
    [400, "FAILED_PRECONDITION", "FAILED_PRECONDITION"],
    [502, undefined, "INTERNAL"],
    [503, undefined, "UNAVAILABLE"],
    [508, undefined, "INTERNAL"],
  ] as const)("%i (vendor type %s) is %s", (status, vendorType, name) => {
    expect((encodeRelayError(new CoreError(status, "x", "m", vendorType ? { vendorType } : {})).error as any).status).toBe(name);
  });
});
