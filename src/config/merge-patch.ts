// RFC 7396 JSON merge patch: objects merge recursively, null deletes, anything
// else replaces. Prototype keys are refused so a patch cannot pollute objects.
// The recursion follows the patch only, whose depth the caller bounds before
// parsing it (src/config/patch.ts).

const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (FORBIDDEN.has(key)) throw new TypeError(`merge patch may not set "${key}"`);
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}
