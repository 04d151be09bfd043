// The promise-inspection seam the stream relay uses to skip a timer when a vendor's end has already arrived.
import { describe, expect, test } from "bun:test";
import { fulfilledValue } from "../../src/runtime/peek.ts";

describe("fulfilledValue", () => {
  test("a fulfilled promise gives its value, without awaiting", () => {
    expect(fulfilledValue(Promise.resolve({ done: true }))).toEqual({ done: true });
  });

  test("a pending promise gives undefined", () => {
    expect(fulfilledValue(new Promise(() => {}))).toBeUndefined();
  });

  test("a rejected promise gives undefined, not its reason", async () => {
    const failed = Promise.reject(new Error("connection reset"));
    failed.catch(() => {});
    expect(fulfilledValue(failed)).toBeUndefined();
  });

  test("a promise resolved to another promise counts only once that one is fulfilled", async () => {
    let resolveInner!: (v: number) => void;
    const outer = Promise.resolve(new Promise<number>((r) => (resolveInner = r)));
    await Promise.resolve();
    expect(fulfilledValue(outer)).toBeUndefined();
    resolveInner(7);
    await outer;
    expect(fulfilledValue(outer)).toBe(7);
  });
});
