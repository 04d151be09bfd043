import { describe, expect, test } from "bun:test";
import type { ErrorKind } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { readRecording } from "./openai.helpers.ts";

describe("error decoding", () => {
  test("the recorded unsupported-parameter error keeps message and vendor type", () => {
    const body = JSON.parse(readRecording("openai/chat__reasoning-model-legacy-parameter-error.json"));
    expect(openaiCodec.decodeError(400, body)).toEqual({
      kind: "invalid_request",
      status: 400,
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      vendorType: "invalid_request_error",
    });
  });

  const statuses: Array<[number, ErrorKind]> = [
    [400, "invalid_request"],
    [401, "authentication"],
    [403, "permission"],
    [404, "not_found"],
    [408, "timeout"],
    [413, "request_too_large"],
    [422, "invalid_request"],
    [429, "rate_limit"],
    [500, "api_error"],
    [502, "api_error"],
    [503, "overloaded"],
    [504, "timeout"],
    [529, "overloaded"],
  ];
  for (const [status, kind] of statuses) {
    test(`HTTP ${status} is ${kind}`, () => {
      const err = openaiCodec.decodeError(status, { error: { message: "x", type: "t" } });
      expect(err.kind).toBe(kind);
      expect(err.status).toBe(status);
    });
  }

  test("retry-after-ms is preferred over retry-after and converted to seconds", () => {
    const headers = new Headers({ "retry-after-ms": "1500", "retry-after": "9" });
    expect(openaiCodec.decodeError(429, {}, headers).retryAfter).toBe(1.5);
    expect(openaiCodec.decodeError(429, {}, new Headers({ "retry-after": "20" })).retryAfter).toBe(20);
    expect(openaiCodec.decodeError(429, {}, new Headers()).retryAfter).toBeUndefined();
  });

  test("retry-after as an HTTP date counts seconds from now, never negative", () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    expect(openaiCodec.decodeError(503, {}, new Headers({ "retry-after": past })).retryAfter).toBe(0);
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    const wait = openaiCodec.decodeError(503, {}, new Headers({ "retry-after": future })).retryAfter ?? 0;
    expect(wait).toBeGreaterThan(3000);
    expect(wait).toBeLessThanOrEqual(3600);
  });

  test("non-JSON and odd bodies do not throw", () => {
    expect(openaiCodec.decodeError(502, "<html>Bad Gateway</html>")).toEqual({
      kind: "api_error",
      status: 502,
      message: "<html>Bad Gateway</html>",
    });
    expect(openaiCodec.decodeError(500, undefined).message).toBe("HTTP 500");
    expect(openaiCodec.decodeError(500, 42).message).toBe("HTTP 500");
    expect(openaiCodec.decodeError(400, '{"error":{"message":"bad","code":"invalid_value"}}')).toMatchObject({
      message: "bad",
      vendorType: "invalid_value",
    });
    // Mistral puts the fields at the top level; some proxies send `error` as a string.
    expect(openaiCodec.decodeError(422, { object: "error", message: "Extra inputs are not permitted", type: "invalid_request_error" }).message).toBe(
      "Extra inputs are not permitted",
    );
    expect(openaiCodec.decodeError(401, { error: "Invalid API key" }).message).toBe("Invalid API key");
  });
});

describe("error encoding", () => {
  test("OpenAI shape with the vendor type when known, the error kind as code", () => {
    expect(openaiCodec.encodeError({ kind: "rate_limit", status: 429, message: "slow down", retryAfter: 3 })).toEqual({
      error: { message: "slow down", type: "rate_limit_error", param: null, code: "rate_limit" },
    });
    expect(
      openaiCodec.encodeError({ kind: "invalid_request", status: 400, message: "bad", vendorType: "invalid_request_error" }),
    ).toEqual({ error: { message: "bad", type: "invalid_request_error", param: null, code: "invalid_request" } });
  });

  test("decodeError(encodeError(e)) keeps kind-relevant facts", () => {
    const original = { kind: "permission" as const, status: 403, message: "no access", vendorType: "permission_error" };
    expect(openaiCodec.decodeError(403, openaiCodec.encodeError(original))).toEqual(original);
  });
});
