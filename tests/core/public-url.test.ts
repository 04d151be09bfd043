// The SSRF guard of the calls Relay makes to its users' URLs (src/core/net/public-url.ts): which URLs
// are refused and why (schemes, credentials, every non-public address class in every spelling the URL
// parser accepts, names resolved by the real resolver), and fetchPublic against a real local server
// (no redirect followed, the size cap, the timeout, nothing sent when the address is refused).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CoreError } from "../../src/core/errors.ts";
import { nonPublicReason } from "../../src/core/net/ip-ranges.ts";
import { assertPublicUrl, fetchPublic } from "../../src/core/net/public-url.ts";

const STRICT = { allowPrivate: false, parameter: "card_url" };
const LENIENT = { allowPrivate: true, parameter: "card_url" };

async function refusal(p: Promise<unknown>): Promise<CoreError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(CoreError);
  return e as CoreError;
}

async function expectRefused(url: string, code = "unsafe_url", opts = STRICT) {
  const e = await refusal(assertPublicUrl(url, opts));
  expect({ url, status: e.status, code: e.code, parameter: e.extra.details?.parameter }).toEqual({ url, status: 400, code, parameter: opts.parameter });
  return e;
}

describe("assertPublicUrl", () => {
  test("only http and https, and no credentials, whatever allowPrivate says", async () => {
    for (const opts of [STRICT, LENIENT]) {
      for (const url of ["ftp://example.com/card", "file:///etc/passwd", "javascript:alert(1)", "gopher://example.com/", "not a url", "//example.com/x", ""]) {
        await expectRefused(url, "unsafe_url", opts);
      }
      expect((await expectRefused("https://user:secret@example.com/", "unsafe_url", opts)).message).toContain("credentials");
      await expectRefused("https://user@example.com/", "unsafe_url", opts);
    }
  });

  test("names the caller's parameter and never echoes the address", async () => {
    const e = await expectRefused("http://169.254.169.254/latest/meta-data/", "unsafe_url", { allowPrivate: false, parameter: "url" });
    expect(e.extra.details).toEqual({ parameter: "url", expected: "string" });
    expect(e.message).toContain("link-local");
    expect(e.message).not.toContain("169.254");
  });

  test("localhost, resolved by the system resolver, is refused", async () => {
    for (const url of ["http://localhost:4200/", "http://LOCALHOST/x"]) {
      expect((await expectRefused(url)).message).toContain("loopback");
    }
    // The rooted name: refused whichever way this resolver answers it (loopback, or not at all).
    expect(["unsafe_url", "url_unreachable"]).toContain((await refusal(assertPublicUrl("https://localhost./", STRICT))).code);
  });

  test("an IPv4 literal of every non-public class is refused", async () => {
    const cases: [string, string][] = [
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"],
      ["10.1.2.3", "private"],
      ["100.64.0.1", "carrier-grade NAT"],
      ["100.127.255.254", "carrier-grade NAT"],
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["169.254.169.254", "link-local"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.0.0.8", "IETF protocol assignment"],
      ["192.0.2.1", "documentation"],
      ["192.168.1.1", "private"],
      ["198.18.0.1", "benchmarking"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.9", "documentation"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["240.0.0.1", "reserved or broadcast"],
      ["255.255.255.255", "reserved or broadcast"],
    ];
    for (const [ip, why] of cases) {
      expect(nonPublicReason(ip)).toBe(why);
      expect((await expectRefused(`http://${ip}:8080/card`)).message).toContain(why);
    }
  });

  test("the edges of each range: the neighbours are public", async () => {
    for (const ip of ["9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "223.255.255.255", "8.8.8.8", "1.1.1.1"]) {
      expect({ ip, why: nonPublicReason(ip) }).toEqual({ ip, why: undefined });
    }
    expect((await assertPublicUrl("https://8.8.8.8/card", STRICT)).href).toBe("https://8.8.8.8/card");
    expect((await assertPublicUrl("https://[2606:4700:4700::1111]/", STRICT)).hostname).toBe("[2606:4700:4700::1111]");
  });

  test("IPv6 literals of every non-public class, and IPv4 addresses inside IPv6 forms, are refused", async () => {
    const cases: [string, string][] = [
      ["[::]", "unspecified"],
      ["[::1]", "loopback"],
      ["[0:0:0:0:0:0:0:1]", "loopback"],
      ["[::ffff:127.0.0.1]", "IPv4-mapped form of a loopback"],
      ["[::ffff:7f00:1]", "IPv4-mapped form of a loopback"],
      ["[0:0:0:0:0:ffff:a9fe:a9fe]", "IPv4-mapped form of a link-local"],
      ["[::ffff:10.0.0.1]", "IPv4-mapped form of a private"],
      ["[::127.0.0.1]", "IPv4-compatible (deprecated)"],
      ["[64:ff9b::192.168.0.1]", "NAT64 form of a private"],
      ["[64:ff9b:1::1]", "local NAT64"],
      ["[2002:c0a8:101::1]", "6to4 form of a private"],
      ["[2001::1]", "Teredo tunnel"],
      ["[2001:db8::1]", "documentation"],
      ["[100::1]", "discard-only"],
      ["[fc00::1]", "private (unique local)"],
      ["[fd12:3456::1]", "private (unique local)"],
      ["[fe80::1]", "link-local"],
      ["[febf::1]", "link-local"],
      ["[fec0::1]", "site-local (deprecated)"],
      ["[ff02::1]", "multicast"],
    ];
    for (const [ip, why] of cases) {
      expect({ ip, why: nonPublicReason(ip) }).toEqual({ ip, why });
      await expectRefused(`http://${ip}/`);
    }
    // The mapped and translated forms of a public address are that public address.
    for (const ip of ["::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111", "2a00:1450::1"]) {
      expect({ ip, why: nonPublicReason(ip) }).toEqual({ ip, why: undefined });
    }
  });

  test("decimal, octal, hex and short IPv4 spellings are normalised by the URL parser, then refused", async () => {
    for (const url of ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://0x7f000001/", "http://127.1/", "http://0/", "http://017700000001/"]) {
      expect(new URL(url).hostname).toMatch(/^(127\.0\.0\.1|0\.0\.0\.0)$/);
      await expectRefused(url);
    }
    await expectRefused("http://0xa9fea9fe/latest/meta-data/"); // 169.254.169.254
  });

  test("what does not parse as an address is not public (fail closed)", () => {
    for (const s of ["", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "::1::2", "1:2:3:4:5:6:7:8:9", "12345::", "g::1"]) {
      expect({ s, why: nonPublicReason(s) }).toEqual({ s, why: "unparsable" });
    }
  });

  test("a name that does not resolve is unreachable, not unsafe", async () => {
    expect((await expectRefused("https://relay-test.invalid/card", "url_unreachable")).message).toContain("does not resolve");
  });

  test("allowPrivate skips the address check", async () => {
    for (const url of ["http://localhost:4200/card", "http://10.0.0.1/", "http://[::1]/", "http://169.254.169.254/"]) {
      expect((await assertPublicUrl(url, LENIENT)).href).toBe(url);
    }
  });
});

describe("fetchPublic", () => {
  let server: ReturnType<typeof Bun.serve>;
  let base: string;
  let hits = 0;
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        hits++;
        const path = new URL(req.url).pathname;
        if (path === "/ok") return Response.json({ method: req.method, body: req.body ? "sent" : "none" });
        if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "http://10.0.0.1/card" } });
        if (path === "/big") return new Response("x".repeat(2000));
        if (path === "/big-stream") return new Response(new ReadableStream({ pull: (c) => c.enqueue(new TextEncoder().encode("y".repeat(512))) }));
        if (path === "/never") return new Promise<Response>(() => {});
        return new Response("nope", { status: 404 });
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  const opts = { ...LENIENT, timeoutMs: 2_000, maxBytes: 1_000 };

  test("answers status, headers and text", async () => {
    const res = await fetchPublic(`${base}/ok`, { method: "POST", body: "{}" }, opts);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(res.text)).toEqual({ method: "POST", body: "sent" });
    expect((await fetchPublic(`${base}/missing`, {}, opts)).status).toBe(404);
  });

  test("a refused address is never called", async () => {
    const before = hits;
    await expectRefused(`${base}/ok`, "unsafe_url", STRICT);
    const e = await refusal(fetchPublic(`${base}/ok`, {}, { ...opts, allowPrivate: false }));
    expect(e.code).toBe("unsafe_url");
    expect(hits).toBe(before);
  });

  test("a redirect is refused, not followed", async () => {
    const e = await refusal(fetchPublic(`${base}/redirect`, {}, opts));
    expect([e.status, e.code]).toEqual([400, "unsafe_url"]);
    expect(e.message).toContain("redirect (302)");
  });

  test("an answer over the cap is refused, declared or streamed", async () => {
    for (const path of ["/big", "/big-stream"]) {
      const e = await refusal(fetchPublic(`${base}${path}`, {}, opts));
      expect([e.status, e.code, e.extra.details?.parameter]).toEqual([400, "response_too_large", "card_url"]);
    }
  });

  test("a server that never answers times out; one that is not there is unreachable", async () => {
    const slow = await refusal(fetchPublic(`${base}/never`, {}, { ...opts, timeoutMs: 200 }));
    expect([slow.code, slow.message]).toEqual(["url_unreachable", "card_url did not answer within 200 ms"]);
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const gone = `http://127.0.0.1:${closed.port}/`;
    await closed.stop(true);
    expect((await refusal(fetchPublic(gone, {}, opts))).code).toBe("url_unreachable");
  });
});
