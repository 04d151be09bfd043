// The one module that makes Relay's ids (src/core/ids.ts): formats the run log, clients and tests rely
// on, order within a millisecond, uniqueness at volume, and an even spread of the random characters.
import { describe, expect, test } from "bun:test";
import { newRequestId, prefixedId, randomBase36, randomHex, secretToken, sequentialIds } from "../../src/core/ids.ts";

describe("request ids", () => {
  test("are req_ + 9 characters of the time + 3 of a counter + 11 random, all base 36", () => {
    const now = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    const id = newRequestId(now);
    expect(id).toMatch(/^req_[0-9a-z]{23}$/);
    expect(parseInt(id.slice(4, 13), 36)).toBe(now);
  });

  test("made within one millisecond, sort in the order they were made; a later millisecond sorts after", () => {
    const now = Date.now() + 120_000; // a millisecond no other id of this process has used
    const ids = Array.from({ length: 5_000 }, () => newRequestId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map((id) => parseInt(id.slice(13, 16), 36))).toEqual(ids.map((_, i) => i));
    expect(newRequestId(now + 1) > ids.at(-1)!).toBe(true);
  });

  test("100k ids are all distinct, and so are their random parts within one millisecond", () => {
    const ids = Array.from({ length: 100_000 }, () => newRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    const sameMs = Array.from({ length: 1_000 }, () => newRequestId(Date.now() + 240_000).slice(16));
    expect(new Set(sameMs).size).toBe(sameMs.length);
  });
});

describe("prefixed ids", () => {
  test("are prefix_ + 24 hex characters by default, or as many as asked", () => {
    expect(prefixedId("call")).toMatch(/^call_[0-9a-f]{24}$/);
    expect(prefixedId("resp")).toMatch(/^resp_[0-9a-f]{24}$/);
    expect(prefixedId("msg", 32)).toMatch(/^msg_[0-9a-f]{32}$/);
  });

  test("100k are all distinct", () => {
    const ids = Array.from({ length: 100_000 }, () => prefixedId("call"));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("random characters", () => {
  test("hex and base 36 use their whole alphabet, evenly (each character within 10% of its share over 360k)", () => {
    for (const [make, size] of [[randomHex, 16], [randomBase36, 36]] as const) {
      const counts = new Map<string, number>();
      for (const c of make(360_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
      expect(counts.size).toBe(size);
      const share = 360_000 / size;
      for (const n of counts.values()) expect(Math.abs(n - share) / share).toBeLessThan(0.1);
    }
  });

  test("lengths are exact, including across a refill of the random pool", () => {
    for (let i = 0; i < 1_000; i++) expect(randomBase36(11).length).toBe(11);
    expect(randomHex(10_000)).toMatch(/^[0-9a-f]{10000}$/);
    expect(randomHex(0)).toBe("");
  });
});

describe("secrets and sequences", () => {
  test("a secret is unpadded base64url of its bytes: 32 bytes are 43 characters, each token different", () => {
    const tokens = Array.from({ length: 1_000 }, () => secretToken());
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(secretToken(3)).toMatch(/^[A-Za-z0-9_-]{4}$/);
    // It decodes back to that many bytes (the same encoding as Node's Buffer "base64url").
    expect(Buffer.from(secretToken(32), "base64url").length).toBe(32);
  });

  test("sequential ids count from 1 per generator", () => {
    const a = sequentialIds("mem-");
    const b = sequentialIds("redis-x-");
    expect([a(), a(), b(), a()]).toEqual(["mem-1", "mem-2", "redis-x-1", "mem-3"]);
  });
});
