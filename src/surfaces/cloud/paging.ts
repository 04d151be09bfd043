// Query parameters of the hosted API's paged lists: `limit` (default 50, capped at 100 and the cap
// echoed, as /api/discover's spec asks) and `offset` (default 0); a value that is not an integer of
// at least its minimum is a 400 naming it.
import { invalid } from "../../core/registry/fields.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** `name`'s integer value in `query`: `fallback` when absent; 400 when not an integer of at least `min`. */
export function integerParam(query: URLSearchParams, name: string, fallback: number, min: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) throw invalid(name, raw, "integer", `must be an integer of at least ${min}`);
  return n;
}

/** A list's page: `limit` over MAX_LIMIT counts as MAX_LIMIT (and is answered so). */
export const pageOf = (query: URLSearchParams): { limit: number; offset: number } => ({
  limit: Math.min(integerParam(query, "limit", DEFAULT_LIMIT, 1), MAX_LIMIT),
  offset: integerParam(query, "offset", 0, 0),
});
