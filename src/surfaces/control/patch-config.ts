// POST /control/config over HTTP: the body is read within the patch's byte limit (refused as soon as
// it passes it, so a client cannot make Relay buffer more), handed to the config patch service
// (src/config/patch.ts: bounds, file-only settings, options, the write queue) and its result
// rendered; its refusals are CoreErrors the surface renders like any other.
import { patchConfig as applyConfigPatch, PATCH_LIMITS, patchTooLarge } from "../../config/patch.ts";
import { readCapped } from "../../core/read-capped.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";

export async function patchConfig(relay: Relay, request: Request): Promise<Response> {
  const text = await readCapped(request, PATCH_LIMITS.bytes, patchTooLarge);
  return json(await applyConfigPatch(relay, text));
}
