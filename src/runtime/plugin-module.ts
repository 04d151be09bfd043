// Runtime seam: makes `relay/plugin` importable by plugin files that live
// outside any source tree or node_modules (also from the compiled binary).
import { plugin } from "bun";
import * as api from "../plugin/api.ts";

let registered = false;

export function registerPluginModule(): void {
  if (registered) return;
  registered = true;
  plugin({
    name: "relay-plugin-api",
    setup(build) {
      build.module("relay/plugin", () => ({ exports: { ...api }, loader: "object" }));
    },
  });
}
