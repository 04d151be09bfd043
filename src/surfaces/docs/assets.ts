// The /docs page and its files. Swagger UI (swagger-ui-dist) is embedded in
// the binary: its 1.7 MB script and stylesheet are imported as files, read on
// first use rather than parsed at every start, and served from /docs/assets,
// so the page loads nothing from any other origin.
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import initJs from "./assets/init.js" with { type: "text" };
import { etagOf } from "../respond.ts";

export interface DocsAsset {
  text: string;
  contentType: string;
  etag: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

// The source maps are not shipped; drop the comment pointing at them.
const SOURCE_MAP_COMMENT = /\n?\/[/*]# sourceMappingURL=\S+?(\*\/)?\s*$/;

const fromFile = (path: string, contentType: string) => async (): Promise<DocsAsset> => {
  const text = (await Bun.file(path).text()).replace(SOURCE_MAP_COMMENT, "\n");
  return { text, contentType, etag: etagOf(text) };
};

// A Map: the name is the client's path segment, and a plain object would answer `hasOwnProperty`.
const loaders = new Map<string, () => Promise<DocsAsset>>([
  ["swagger-ui.js", fromFile(swaggerJs, JS)],
  ["swagger-ui.css", fromFile(swaggerCss, CSS)],
  ["init.js", async () => ({ text: initJs, contentType: JS, etag: etagOf(initJs) })],
]);

export const DOCS_ASSET_NAMES = [...loaders.keys()];

const loaded = new Map<string, Promise<DocsAsset>>();

/** The asset served at /docs/assets/<name>, or undefined when there is none. */
export function docsAsset(name: string): Promise<DocsAsset> | undefined {
  const load = loaders.get(name);
  if (!load) return undefined;
  let asset = loaded.get(name);
  if (!asset) loaded.set(name, (asset = load()));
  return asset;
}

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relay API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;
