import { describe, expect, test } from "bun:test";
import { classifyFailure, describeFailureDetail, describeVendorFailure, parseRetryAfter } from "../../src/core/limits/failure.ts";

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
    // Issue 34: a vendor whose bytes are not HTTP is as unusable as one that is down.
    ["Bun: not HTTP", { error: networkError("Malformed_HTTP_Response") }, { retryable: true, vendorSide: true, reason: "connection_error:Malformed_HTTP_Response" }],
    ["llhttp: not HTTP", { error: networkError("HPE_INVALID_CONSTANT") }, { retryable: true, vendorSide: true, reason: "connection_error:HPE_INVALID_CONSTANT" }],
    ["TLS to a plain port", { error: networkError("EPROTO") }, { retryable: true, vendorSide: true, reason: "connection_error:EPROTO" }],
    ["508: a loop is a configuration fault", { status: 508 }, { retryable: false, vendorSide: false, reason: "http_508" }],
    ["an invalid URL is not the vendor's fault", { error: networkError("ERR_INVALID_URL") }, { retryable: false, vendorSide: false, reason: "unknown_error" }],
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

describe("describeVendorFailure and describeFailureDetail", () => {
  // Bun's own shape for a server that answers bytes that are not HTTP: its message quotes the whole URL.
  const url = "http://127.0.0.1:41234/v1/chat/completions?key=sk-secret";
  const notHttp = Object.assign(new TypeError(`Malformed_HTTP_Response fetching "${url}". For more information, pass \`verbose: true\``), {
    code: "Malformed_HTTP_Response",
    path: url,
  });

  test("the client's words name the provider and the cause, never the URL", () => {
    expect(describeVendorFailure("openai", notHttp)).toBe("openai: the answer is not HTTP");
    expect(describeVendorFailure("anthropic", networkError("ECONNREFUSED"))).toBe("anthropic: connection refused");
    expect(describeVendorFailure("groq", networkError("ECONNRESET"))).toBe("groq: connection reset");
    expect(describeVendorFailure("groq", networkError("EWEIRD"))).toBe("groq: connection failed (EWEIRD)");
    expect(describeVendorFailure("groq", new TypeError(`Cannot read ${url}`))).toBe("groq: vendor call failed");
    expect(describeVendorFailure("openai", new DOMException("vendor did not answer within 1000 ms", "TimeoutError"))).toBe("openai: vendor did not answer within 1000 ms");
  });

  test("a real Bun fetch error from a server that is not HTTP never shows its address", async () => {
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(s) {
          s.write("SSH-2.0-x\r\nnot http\r\n");
          s.end();
        },
        data() {},
      },
    });
    try {
      const error = await fetch(`http://127.0.0.1:${server.port}/v1/chat`, { method: "POST", body: "{}" }).catch((e: unknown) => e);
      expect(classifyFailure({ error })).toMatchObject({ retryable: true, vendorSide: true });
      expect(describeVendorFailure("openai", error)).not.toContain(String(server.port));
    } finally {
      server.stop(true);
    }
  });

  test("the log's detail keeps the runtime's words with each URL cut to its origin", () => {
    const detail = describeFailureDetail(notHttp);
    expect(detail).toStartWith("Malformed_HTTP_Response fetching \"http://127.0.0.1:41234\"");
    expect(detail).not.toContain("/v1/chat");
    expect(detail).not.toContain("sk-secret");
    expect(describeFailureDetail(networkError("ECONNRESET"))).toBe("ECONNRESET: socket trouble");
    expect(describeFailureDetail(Object.assign(new Error("socket closed"), { code: "EPIPE" }))).toBe("EPIPE: socket closed");
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
