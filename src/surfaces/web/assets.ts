// What Relay's browser pages (the dashboard, the team console) share: the embedded-file type, and
// the stylesheet, icon and page helpers script each serves under its own path. Imported as text so
// `bun build --compile` embeds them in the binary: the pages never load anything from elsewhere.
import appCss from "./app.css" with { type: "text" };
import icon from "./icon.svg" with { type: "text" };
import uiJs from "./ui.js" with { type: "text" };
import { etagOf } from "../respond.ts";

export interface Asset {
  text: string;
  contentType: string;
  etag: string;
}

export const asset = (text: string, contentType: string): Asset => ({ text, contentType, etag: etagOf(text) });

export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";

/** The files every page surface serves, by name. */
export const SHARED_ASSETS = {
  "app.css": asset(appCss, CSS),
  "icon.svg": asset(icon, "image/svg+xml"),
  "ui.js": asset(uiJs, JS),
} as const;

/**
 * A surface's files served at <base>/<name>, looked up by the client's path segment: a null-prototype
 * object, so that `__proto__` or `hasOwnProperty` finds nothing rather than Object.prototype's members.
 */
export const assetTable = (own: Record<string, Asset>): Readonly<Record<string, Asset>> =>
  Object.freeze(Object.assign(Object.create(null) as Record<string, Asset>, SHARED_ASSETS, own));
