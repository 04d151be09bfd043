// The providers and strategies in force: built-ins first, then user plugins,
// which may replace a built-in of the same name (the log says so).
import type { ProviderPlugin, RelayPlugin, StrategyPlugin } from "./api.ts";

export interface Registration {
  name: string;
  kind: RelayPlugin["kind"];
  source: "builtin" | string;
}

export class Registry {
  readonly providers = new Map<string, ProviderPlugin>();
  readonly strategies = new Map<string, StrategyPlugin>();
  private readonly virtualModels = new Map<string, StrategyPlugin>();
  private readonly sources = new Map<string, string>();

  /** Register a plugin; returns the source it replaced, if any. */
  register(plugin: RelayPlugin, source: string): string | undefined {
    const key = `${plugin.kind}:${plugin.name}`;
    const replaced = this.sources.get(key);
    this.sources.set(key, source);
    if (plugin.kind === "provider") {
      this.providers.set(plugin.name, plugin);
    } else {
      const old = this.strategies.get(plugin.name);
      for (const m of old?.models ?? []) this.virtualModels.delete(m.toLowerCase());
      this.strategies.set(plugin.name, plugin);
      for (const m of plugin.models ?? []) this.virtualModels.set(m.toLowerCase(), plugin);
    }
    return replaced;
  }

  /** The strategy that answers to a virtual model name such as `svc:auto`. */
  strategyForModel(model: string): StrategyPlugin | undefined {
    return this.virtualModels.get(model.toLowerCase());
  }

  virtualModelNames(): Array<{ model: string; strategy: string; description?: string }> {
    return [...this.virtualModels].map(([model, s]) => ({ model, strategy: s.name, description: s.description }));
  }

  list(): Registration[] {
    return [...this.sources].map(([key, source]) => {
      const [kind, name] = key.split(":") as [RelayPlugin["kind"], string];
      return { kind, name, source };
    });
  }
}
