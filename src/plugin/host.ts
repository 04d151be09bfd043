// Loads user plugins: every .ts/.js file directly inside each plugins folder.
// A plugin that fails is reported with its file and error; the rest still load.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RelayPlugin } from "./api.ts";
import { definePlugin } from "./api.ts";
import { registerPluginModule } from "../runtime/plugin-module.ts";

export interface LoadedPlugin {
  file: string;
  plugin: RelayPlugin;
}
export interface FailedPlugin {
  file: string;
  error: string;
}

const PLUGIN_FILE = /\.(ts|js|mjs)$/;

export function pluginFiles(dirs: string[]): string[] {
  const files: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue; // a missing plugins folder is normal
    }
    for (const name of names) {
      const file = resolve(join(dir, name));
      if (PLUGIN_FILE.test(name) && !name.endsWith(".d.ts") && statSync(file).isFile()) files.push(file);
    }
  }
  return files;
}

/** Import every plugin file. `version` busts the module cache on hot reload. */
export async function loadPlugins(dirs: string[], version = 0): Promise<{ loaded: LoadedPlugin[]; failed: FailedPlugin[] }> {
  registerPluginModule();
  const loaded: LoadedPlugin[] = [];
  const failed: FailedPlugin[] = [];
  for (const file of pluginFiles(dirs)) {
    try {
      const mod = await import(version ? `${file}?v=${version}` : file);
      // Validate again: a plugin may export a plain object without calling definePlugin.
      loaded.push({ file, plugin: definePlugin(mod.default) });
    } catch (e) {
      failed.push({ file, error: describe(e) });
    }
  }
  return { loaded, failed };
}

function describe(e: unknown): string {
  if (e instanceof AggregateError && e.errors.length) return e.errors.map((x) => String((x as Error)?.message ?? x)).join("; ");
  if (e instanceof Error) return e.message;
  return String(e);
}
