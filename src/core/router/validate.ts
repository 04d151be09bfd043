// Wire-format checks of a chat body, run before any planning or vendor call:
// a control character (C0, DEL or C1) in the model name or in a top-level key
// is a client's encoding error, and letting it through would put it in a URL,
// a header or a log line later (after the vendor was paid). Keys nested deeper
// (a tool schema's property names, say) are the client's own data and pass
// untouched. One charCode loop per string: no regex, no allocation.
import { CodecError } from "../formats/types.ts";
import { CoreError } from "../errors.ts";

/** C0 controls, DEL and the C1 controls. */
export function hasControlChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Long names are cut in the message: the client knows what it sent. */
const shown = (s: string): string => JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** Refuses control characters in the model name and the top-level keys (the body is a parsed JSON object). */
export function checkWireNames(body: Record<string, unknown>): void {
  const model = body.model;
  if (typeof model === "string" && hasControlChar(model))
    throw new CoreError(400, "invalid_request", "The model name contains control characters", {
      details: { parameter: "model", provided: model, expected: "a model name without control characters" },
    });
  for (const key in body) {
    if (hasControlChar(key))
      throw new CoreError(400, "invalid_request", `The request body key ${shown(key)} contains control characters`, {
        details: { parameter: key, expected: "a parameter name without control characters" },
      });
  }
}

/**
 * What an error thrown while reading or converting a client's body becomes: a codec's refusal
 * (input it cannot read, JSON nested too deeply) is a 400; anything else is Relay's own fault
 * and stays as it is (undefined).
 */
export function clientInputError(e: unknown): CoreError | undefined {
  if (e instanceof CoreError) return e;
  if (e instanceof CodecError)
    return new CoreError(400, "invalid_request", e.message, e.parameter ? { details: { parameter: e.parameter, expected: e.expected ?? "valid value" } } : {});
  return undefined;
}
