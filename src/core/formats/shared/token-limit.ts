// A client's output-token limit (max_tokens, max_completion_tokens, a thinking budget) is what a
// budget reservation is sized by, so a value that is not a plain count is refused before any
// vendor call: a negative or zero one reserved nothing, a fractional one is no count, and one
// past any model's output by far (the largest today is 128k) only makes an absurd reservation.
import { CodecError } from "../types.ts";

/** Far above any model's real maximum output, far below where a float stops counting exactly. */
export const MAX_TOKEN_LIMIT = 10_000_000;
const RANGE = `integer 1..${MAX_TOKEN_LIMIT}`;

/** A whole number from 1 to MAX_TOKEN_LIMIT; absent or null is undefined. */
export function optTokenLimit(v: unknown, parameter: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw new CodecError(`${parameter} must be a number, got ${typeof v}`, parameter, "number");
  if (Number.isInteger(v) && v >= 1 && v <= MAX_TOKEN_LIMIT) return v;
  throw new CodecError(`${parameter} must be a whole number from 1 to ${MAX_TOKEN_LIMIT}, got ${v}`, parameter, RANGE);
}
