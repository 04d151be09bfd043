import { describe, expect, test } from "bun:test";
import { classifyFailure, parseRetryAfter } from "../../src/core/limits/failure.ts";

function networkError(code: string): TypeError {
  return Object.assign(new TypeError(`${code}: socket trouble`), { code });
}

describe("classifyFailure", () => {
  const table: Array<[string, { status?: number; error?: unknown }, { retryable: boolean; vendorSide: boolean; reason: string }]> = [
    ["400 bad request", { status: 400 }, { retryable: false, vendorSide: false, reason: "http_400" }],
    ["401 unauthorized", { status: 401 }, { retryable: false, vendorSide: false, reason: "http_401" }],
    ["403 forbidden", { status: 403 }, { retryable: false, vendorSide: false, reason: "http_403" }],
    ["404 not found", { status: 404 }, { retryable: false, vendorSide: false, reason: "http_404" }],
    ["413 too large", { status: 413 }, { retryable: false, vendorSide: false, reason: "http_413" }],
    ["422 unprocessable", { status: 422 }, { retryable: false, vendorSide: false, reason: "http_422" }],
    ["408 request timeout", { status: 408 }, { retryable: true, vendorSide: true, reason: "http_408" }],
    ["409 conflict", { status: 409 }, { retryable: true, vendorSide: false, reason: "http_409" }],
    ["429 rate limited", { status: 429 }, { retryable: true, vendorSide: true, reason: "http_429" }],
    ["500 server error", { status: 500 }, { retryable: true, vendorSide: true, reason: "http_500" }],
    ["502 bad gateway", { status: 502 }, { retryable: true, vendorSide: true, reason: "http_502" }],
    ["503 unavailable", { status: 503 }, { retryable: true, vendorSide: true, reason: "http_503" }],
    ["504 gateway timeout", { status: 504 }, { retryable: true, vendorSide: true, reason: "http_504" }],
    ["529 overloaded", { status: 529 }, { retryable: true, vendorSide: true, reason: "http_529" }],
    ["Bun ECONNREFUSED", { error: networkError("ECONNREFUSED") }, { retryable: true, vendorSide: true, reason: "connection_error:ECONNREFUSED" }],
    ["Bun ECONNRESET", { error: networkError("ECONNRESET") }, { retryable: true, vendorSide: true, reason: "connection_error:ECONNRESET" }],
    [
      "undici fetch failed with cause",
      { error: new TypeError("fetch failed", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) }) },
      { retryable: true, vendorSide: true, reason: "connection_error:ECONNREFUSED" },
    ],
    ["undici fetch failed without code", { error: new TypeError("fetch failed") }, { retryable: true, vendorSide: true, reason: "connection_error" }],
    ["AbortSignal.timeout", { error: new DOMException("The operation timed out.", "TimeoutError") }, { retryable: true, vendorSide: true, reason: "timeout" }],
    [
      "abort caused by a timeout",
      { error: Object.assign(new DOMException("aborted", "AbortError"), { cause: new DOMException("t", "TimeoutError") }) },
      { retryable: true, vendorSide: true, reason: "timeout" },
    ],
    ["client abort", { error: new DOMException("The operation was aborted.", "AbortError") }, { retryable: false, vendorSide: false, reason: "cancelled" }],
    ["our own bug", { error: new TypeError("Cannot read properties of undefined") }, { retryable: false, vendorSide: false, reason: "unknown_error" }],
    ["status wins over error", { status: 401, error: networkError("ECONNRESET") }, { retryable: false, vendorSide: false, reason: "http_401" }],
  ];
  for (const [name, input, expected] of table) {
    test(name, () => expect(classifyFailure(input)).toEqual(expected));
  }

  test("real Bun fetch errors classify as connection errors", async () => {
    // Port 1 on loopback is closed; the refusal is immediate.
    const error = await fetch("http://127.0.0.1:1/").catch((e: unknown) => e);
    expect(classifyFailure({ error })).toMatchObject({ retryable: true, vendorSide: true });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");
  const parse = (h: Record<string, string>, max = 600) => parseRetryAfter(new Headers(h), now, max);

  test("delta seconds", () => expect(parse({ "retry-after": "30" })).toBe(30));
  test("HTTP date", () => expect(parse({ "retry-after": "Sun, 22 Nov 2026 10:00:45 GMT" })).toBe(45));
  test("a date in the past means no wait", () => expect(parse({ "retry-after": "Sun, 22 Nov 2026 09:00:00 GMT" })).toBe(0));
  test("retry-after-ms is preferred for its precision", () => expect(parse({ "retry-after-ms": "1500", "retry-after": "2" })).toBe(1.5));
  test("OpenAI reset durations, the later of requests and tokens", () => {
    expect(parse({ "x-ratelimit-reset-requests": "1s" })).toBe(1);
    expect(parse({ "x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "20ms" })).toBe(360);
    expect(parse({ "x-ratelimit-reset-tokens": "1h2m3.5s" }, 7200)).toBe(3723.5);
  });
  test("capped by the caller's maximum", () => expect(parse({ "retry-after": "86400" }, 120)).toBe(120));
  test("absent or unparseable", () => {
    expect(parse({})).toBeUndefined();
    expect(parse({ "retry-after": "soon" })).toBeUndefined();
    expect(parse({ "x-ratelimit-reset-requests": "" })).toBeUndefined();
    expect(parse({ "x-ratelimit-reset-requests": "5 minutes" })).toBeUndefined();
  });
});
