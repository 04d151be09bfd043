// The page's static files, imported as text so `bun build --compile` embeds
// them in the binary: the dashboard never loads anything from elsewhere.
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import appCss from "./assets/app.css" with { type: "text" };
import appJs from "./assets/app.js" with { type: "text" };
import loginJs from "./assets/login.js" with { type: "text" };
import icon from "./assets/icon.svg" with { type: "text" };
import { etagOf } from "../respond.ts";

export interface Asset {
  text: string;
  contentType: string;
  etag: string;
}

const asset = (text: string, contentType: string): Asset => ({ text, contentType, etag: etagOf(text) });

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/**
 * Served at /dashboard/assets/<name>, looked up by the client's path segment: a null-prototype
 * object, so that `__proto__` or `hasOwnProperty` finds nothing rather than Object.prototype's members.
 */
export const ASSETS: Readonly<Record<string, Asset>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Asset>, {
    "app.js": asset(appJs, JS),
    "app.css": asset(appCss, CSS),
  "login.js": asset(loginJs, JS),
    "uplot.js": asset(uplotJs, JS),
    "uplot.css": asset(uplotCss, CSS),
    "icon.svg": asset(icon, "image/svg+xml"),
  }),
);

export const ASSET_PATHS = {
  appJs: "/dashboard/assets/app.js",
  appCss: "/dashboard/assets/app.css",
  loginJs: "/dashboard/assets/login.js",
  uplotJs: "/dashboard/assets/uplot.js",
  uplotCss: "/dashboard/assets/uplot.css",
  icon: "/dashboard/assets/icon.svg",
};
