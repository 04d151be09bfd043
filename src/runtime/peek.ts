// Promise-inspection seam: Bun can read a settled promise's value without a
// tick; a runtime without that answers "not known yet" and the caller awaits.

/** The promise's value if it has already been fulfilled; undefined while pending or if rejected. */
export function fulfilledValue<T>(promise: Promise<T>): T | undefined {
  return Bun.peek.status(promise) === "fulfilled" ? (Bun.peek(promise) as T) : undefined;
}
