// The providers and strategies in force and the catalog over them, assembled one way for every
// host: the server's Relay (plugins loaded from files, src/plugin/host.ts) and createRouter
// (plugin objects handed in, src/portable.ts).
import type { Config } from "../config/schema.ts";
import { Catalog } from "../core/catalog/catalog.ts";
import type { Logger } from "../core/log.ts";
import { builtinProviders } from "../providers/index.ts";
import { builtinStrategies } from "../strategies/index.ts";
import type { FailedPlugin, LoadedPlugin } from "./host.ts";
import { checkStrategyOptions, describeProblem } from "./options.ts";
import { Registry } from "./registry.ts";

/**
 * A registry of the built-ins, then `plugins` (each replacing a built-in of its name). A plugin
 * whose declarations another already holds is left out, as failed.
 */
export function assembleRegistry(plugins: readonly LoadedPlugin[], log: Logger): { registry: Registry; registered: LoadedPlugin[]; failed: FailedPlugin[] } {
  const registry = new Registry();
  for (const p of builtinProviders) registry.register(p, "builtin");
  for (const s of builtinStrategies) registry.register(s, "builtin");
  const failed: FailedPlugin[] = [];
  const registered = plugins.filter(({ file, plugin }) => {
    try {
      const replaced = registry.register(plugin, file);
      log.info("plugin loaded", { file, kind: plugin.kind, name: plugin.name, ...(replaced ? { replaced } : {}) });
      return true;
    } catch (e) {
      failed.push({ file, error: (e as Error).message });
      return false;
    }
  });
  return { registry, registered, failed };
}

/** Options problems of `registry`'s strategies; configured options no loaded strategy has are logged, as they go unused. */
export function strategyOptionsProblems(strategies: Config["routing"]["strategies"], registry: Registry, log: Logger): string[] {
  const { problems, unused } = checkStrategyOptions(strategies, registry);
  if (unused.length) log.warn("options are configured for strategies that are not loaded; they are unused", { strategies: unused.map((n) => `routing.strategies.${n}`) });
  return problems.map(describeProblem);
}

/** The catalog: the config's model overrides, the registry's providers, and the models the plugins declare. */
export function buildCatalog(c: Config, registry: Registry, plugins: readonly LoadedPlugin[]): Catalog {
  const catalog = new Catalog({ overrides: c.models, providers: registry.providers.values() });
  for (const { plugin } of plugins) if (plugin.kind === "provider" && plugin.models) catalog.addProviderModels(plugin.models);
  return catalog;
}
