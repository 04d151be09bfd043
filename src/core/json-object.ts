// A JSON object from text, refused in the spec's shape: the body of every JSON route, and a config patch.
import { CoreError } from "./errors.ts";

/** Parse a JSON object; anything else is the spec's 400 "Invalid JSON". */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CoreError(400, "invalid_request", "Invalid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CoreError(400, "invalid_request", "Invalid JSON", { details: { parameter: "body", expected: "object" } });
  }
  return value as Record<string, unknown>;
}
