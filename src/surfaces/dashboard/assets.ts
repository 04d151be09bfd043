// The page's static files, imported as text so `bun build --compile` embeds
// them in the binary: the dashboard never loads anything from elsewhere. The
// stylesheet, icon and page helpers are shared with the team console (../web/).
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import appJs from "./assets/app.js" with { type: "text" };
import loginJs from "./assets/login.js" with { type: "text" };
import { CSS, JS, asset, assetTable } from "../web/assets.ts";

/** Served at /dashboard/assets/<name>. */
export const ASSETS = assetTable({
  "app.js": asset(appJs, JS),
  "login.js": asset(loginJs, JS),
  "uplot.js": asset(uplotJs, JS),
  "uplot.css": asset(uplotCss, CSS),
});

export const ASSET_BASE = "/dashboard/assets";

export const ASSET_PATHS = {
  appJs: `${ASSET_BASE}/app.js`,
  uiJs: `${ASSET_BASE}/ui.js`,
  loginJs: `${ASSET_BASE}/login.js`,
  uplotJs: `${ASSET_BASE}/uplot.js`,
  uplotCss: `${ASSET_BASE}/uplot.css`,
};
