// Promise-inspection seam: Bun can read a settled promise's value without a
// tick; a runtime without that answers "not known yet" and the caller awaits.

interface Peek {
  <T>(promise: Promise<T>): T | Promise<T>;
  status(promise: Promise<unknown>): "pending" | "fulfilled" | "rejected";
}

// Detected once: the stream relay asks on every vendor read.
const peek = (globalThis as { Bun?: { peek: Peek } }).Bun?.peek;

/** The promise's value if it has already been fulfilled; undefined while pending or if rejected, and wherever it cannot be known. */
export function fulfilledValue<T>(promise: Promise<T>): T | undefined {
  return peek !== undefined && peek.status(promise) === "fulfilled" ? (peek(promise) as T) : undefined;
}
