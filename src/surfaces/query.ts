// Query-string parsing shared by the surfaces that page and window the run log (telemetry, dashboard).
import { CoreError } from "../core/errors.ts";

/** A whole-number query parameter within bounds, or the spec's 400 naming it. */
export function intParam(url: URL, name: string, def: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new CoreError(400, "invalid_request", `Invalid ${name}: expected a whole number from ${min} to ${max}`, {
      details: { parameter: name, provided: raw, expected: `integer ${min}-${max}` },
    });
  }
  return Number(raw);
}
