// The selectable time ranges of the dashboard and their chart bucket sizes
// (each range draws 48-60 points).
import { CoreError } from "../../core/errors.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const RANGES = {
  hour: { ms: HOUR, bucketMs: MIN },
  day: { ms: DAY, bucketMs: 30 * MIN },
  "7d": { ms: 7 * DAY, bucketMs: 3 * HOUR },
  "30d": { ms: 30 * DAY, bucketMs: 12 * HOUR },
} as const;

export type RangeName = keyof typeof RANGES;

export function rangeParam(url: URL): RangeName {
  const raw = url.searchParams.get("range") ?? "day";
  if (raw in RANGES) return raw as RangeName;
  throw new CoreError(400, "invalid_request", `Invalid range: expected one of ${Object.keys(RANGES).join(", ")}`, {
    details: { parameter: "range", provided: raw, expected: Object.keys(RANGES).join(" | ") },
  });
}
