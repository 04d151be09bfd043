// /openapi.json and the /docs page that browses it. Both are open: the
// document describes routes, it holds no data. Mount it after the surfaces it
// documents: docsSurface([proxy, control, ...]) documents those and itself.
import { Elysia, type AnyElysia } from "elysia";
import type { Logger } from "../../core/log.ts";
import { VERSION } from "../../version.ts";
import { guarded, secure, withEtag } from "../respond.ts";
import { CoreError } from "../../core/errors.ts";
import { DOCS_ASSET_NAMES, DOCS_PAGE, docsAsset } from "./assets.ts";
import { openApiDocument } from "./openapi.ts";
import * as docs from "../openapi/docs.ts";

export function docsSurface(documented: AnyElysia[], log: Logger) {
  // Built on first request: the route table is complete by then and startup pays nothing.
  let documentJson: string | undefined;
  const self: AnyElysia = new Elysia({ name: "docs" })
    .get("/openapi.json", ({ request }) => {
      documentJson ??= JSON.stringify(openApiDocument([...documented, self], { title: "Relay", version: VERSION }));
      return withEtag(request, documentJson, "application/json");
    }, { detail: docs.document })
    .get("/docs", () => secure(new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })), { detail: docs.page })
    .get("/docs/assets/:name", ({ params, request }) =>
      guarded(request, log, async () => {
        const asset = await docsAsset(params.name);
        if (!asset) throw new CoreError(404, "not_found", `No docs asset ${params.name}`);
        return withEtag(request, asset.text, asset.contentType, asset.etag);
      }), { detail: docs.asset(DOCS_ASSET_NAMES) });
  return self;
}
