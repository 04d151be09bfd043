// The console's static files, embedded in the binary like the dashboard's, with which it shares the
// stylesheet, icon and page helpers (../../web/): the console loads nothing from anywhere else.
import consoleCss from "./assets/console.css" with { type: "text" };
import consoleJs from "./assets/console.js" with { type: "text" };
import loginJs from "./assets/login.js" with { type: "text" };
import { CSS, JS, asset, assetTable } from "../../web/assets.ts";

/** Served at /console/assets/<name>. */
export const CONSOLE_ASSETS = assetTable({
  "console.css": asset(consoleCss, CSS),
  "console.js": asset(consoleJs, JS),
  "login.js": asset(loginJs, JS),
});

export const CONSOLE_ASSET_BASE = "/console/assets";

export const CONSOLE_PATHS = {
  uiJs: `${CONSOLE_ASSET_BASE}/ui.js`,
  consoleCss: `${CONSOLE_ASSET_BASE}/console.css`,
  consoleJs: `${CONSOLE_ASSET_BASE}/console.js`,
  loginJs: `${CONSOLE_ASSET_BASE}/login.js`,
};
