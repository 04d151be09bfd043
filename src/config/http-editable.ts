// Which settings POST /control/config may change. A rule read off the schema, not a list: every
// setting marked `fileOnly(kind)` in src/config/schema.ts (where keys or data go, secrets, listen
// and trust settings, files and folders) is refused over HTTP, so a setting added and marked later
// is covered without touching this file. A patch is refused when it sets, deletes or replaces a
// marked setting or any object or map holding one (e.g. `{"server": null}` would reset server.host).
import type { TSchema } from "@sinclair/typebox";
import { ConfigSchema, type FileOnlyKind } from "./schema.ts";

export interface MarkedSetting {
  /** Dotted path; `*` stands for any key of a map (e.g. `providers.*.baseUrl`). */
  path: string;
  kind: FileOnlyKind;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** The schemas one level down: named properties, a map's value schema (under "*"), union alternatives. */
function children(schema: TSchema): Array<[key: string | undefined, child: TSchema]> {
  const out: Array<[string | undefined, TSchema]> = [];
  for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) out.push([k, s]);
  for (const s of Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)) out.push(["*", s]);
  for (const s of (schema.anyOf ?? []) as TSchema[]) out.push([undefined, s]);
  if (schema.items && !Array.isArray(schema.items)) out.push(["*", schema.items as TSchema]);
  return out;
}

/** Every marked setting under `schema`, in schema order. The schema is ours and shallow: plain recursion. */
export function markedSettings(schema: TSchema = ConfigSchema, path = ""): MarkedSetting[] {
  if (schema.httpEditable === false) return [{ path, kind: schema.fileOnly as FileOnlyKind }];
  return children(schema).flatMap(([key, child]) => markedSettings(child, key === undefined ? path : join(path, key)));
}

/**
 * The first marked setting the patch would set, delete or replace, with its path as the patch
 * spells it (e.g. `providers.anthropic.baseUrl`), or undefined when it touches none. The patch's
 * depth is bounded by the caller (the walk recurses along it).
 */
export function firstFileOnlySetting(patch: unknown, schema: TSchema = ConfigSchema, path = ""): MarkedSetting | undefined {
  if (schema.httpEditable === false) return { path, kind: schema.fileOnly as FileOnlyKind };
  // Not an object: this value replaces (or, as null, deletes) the whole node and all it holds.
  if (!isObject(patch)) return markedSettings(schema, path)[0];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const mapValue = Object.values((schema.patternProperties ?? {}) as Record<string, TSchema>)[0];
  for (const [key, value] of Object.entries(patch)) {
    // Own properties only: "__proto__" or "constructor" must not find Object.prototype's members.
    const child = Object.hasOwn(properties, key) ? properties[key] : mapValue;
    const hit = child && firstFileOnlySetting(value, child, join(path, key));
    if (hit) return hit;
  }
  for (const alternative of (schema.anyOf ?? []) as TSchema[]) {
    const hit = firstFileOnlySetting(patch, alternative, path);
    if (hit) return hit;
  }
  return undefined;
}

/** Why a kind of setting is file-only, for the 403's message. */
export const fileOnlyReason: Record<FileOnlyKind, string> = {
  endpoint: "it names where Relay sends keys or data",
  secret: "it is a secret",
  listen: "it says where Relay listens or whom it trusts",
  path: "it names a file, folder or store Relay uses",
};
