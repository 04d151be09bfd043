import { describe, expect, test } from "bun:test";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";

const { decodeError, encodeError } = anthropicCodec;

describe("anthropic errors", () => {
  test("overloaded_error (529) maps to overloaded and back", () => {
    const err = decodeError(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(err).toEqual({ kind: "overloaded", status: 529, message: "Overloaded", vendorType: "overloaded_error" });
    expect(encodeError(err)).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  });

  test("retry-after header becomes retryAfter seconds", () => {
    const err = decodeError(
      429,
      JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }),
      new Headers({ "retry-after": "17" }),
    );
    expect(err).toMatchObject({ kind: "rate_limit", status: 429, retryAfter: 17, message: "slow down" });
  });

  test("every Anthropic error type maps to its kind", () => {
    const cases: Array<[string, string]> = [
      ["invalid_request_error", "invalid_request"],
      ["authentication_error", "authentication"],
      ["permission_error", "permission"],
      ["billing_error", "permission"],
      ["not_found_error", "not_found"],
      ["request_too_large", "request_too_large"],
      ["api_error", "api_error"],
      ["timeout_error", "timeout"],
    ];
    for (const [type, kind] of cases) {
      const err = decodeError(400, { type: "error", error: { type, message: "m" } });
      expect(err.kind).toBe(kind as never);
      expect((encodeError(err).error as { type: string }).type).toBe(type);
    }
  });

  test("non-JSON bodies do not throw and fall back to the status", () => {
    expect(decodeError(502, "<html>Bad gateway</html>")).toEqual({ kind: "api_error", status: 502, message: "<html>Bad gateway</html>" });
    expect(decodeError(503, "")).toEqual({ kind: "overloaded", status: 503, message: "HTTP 503" });
    expect(decodeError(401, null).kind).toBe("authentication");
    expect(decodeError(413, { unexpected: true }).kind).toBe("request_too_large");
  });

  test("another vendor's type name is not reused when it means a different kind", () => {
    // OpenAI reports an unknown model as invalid_request_error with status 404.
    const err = { kind: "not_found" as const, status: 404, message: "no model", vendorType: "invalid_request_error" };
    expect(encodeError(err)).toEqual({ type: "error", error: { type: "not_found_error", message: "no model" } });
  });
});
