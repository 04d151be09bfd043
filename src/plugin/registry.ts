// The providers and strategies in force: built-ins first, then user plugins,
// which may replace a built-in of the same name (the log says so). The roles a
// plugin declares (serving concrete model names, standing in on streams, owning
// a client credential) are settled here, once per registry build.
import type { ProviderPlugin, RelayPlugin, StrategyPlugin, WireFormat } from "./api.ts";

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
  private concrete: StrategyPlugin | undefined;
  private readonly credentialOwners = new Map<WireFormat, ProviderPlugin>();

  /** Register a plugin; returns the source it replaced, if any. Throws, changing nothing, when its declarations conflict. */
  register(plugin: RelayPlugin, source: string): string | undefined {
    const key = `${plugin.kind}:${plugin.name}`;
    if (plugin.kind === "strategy") this.checkConcreteClaim(plugin, source);
    const replaced = this.sources.get(key);
    this.sources.set(key, source);
    if (plugin.kind === "provider") this.registerProvider(plugin);
    else this.registerStrategy(plugin);
    return replaced;
  }

  /** A user plugin's claim takes the role from a built-in; two user plugins cannot both hold it. */
  private checkConcreteClaim(plugin: StrategyPlugin, source: string): void {
    const holder = this.concrete;
    if (!plugin.servesConcreteModels || !holder || holder.name === plugin.name || source === "builtin") return;
    if (this.sources.get(`strategy:${holder.name}`) === "builtin") return;
    throw new Error(`strategy "${plugin.name}" declares servesConcreteModels, but strategy "${holder.name}" already does; only one strategy may`);
  }

  private registerStrategy(plugin: StrategyPlugin): void {
    const old = this.strategies.get(plugin.name);
    for (const m of old?.models ?? []) this.virtualModels.delete(m.toLowerCase());
    if (old && this.concrete === old) this.concrete = undefined; // a replacement inherits nothing by name
    this.strategies.set(plugin.name, plugin);
    for (const m of plugin.models ?? []) this.virtualModels.set(m.toLowerCase(), plugin);
    if (plugin.servesConcreteModels) this.concrete = plugin;
  }

  private registerProvider(plugin: ProviderPlugin): void {
    const old = this.providers.get(plugin.name);
    if (old?.clientCredential && this.credentialOwners.get(old.clientCredential.format) === old) this.credentialOwners.delete(old.clientCredential.format);
    this.providers.set(plugin.name, plugin);
    if (plugin.clientCredential) this.credentialOwners.set(plugin.clientCredential.format, plugin);
  }

  /** The strategy that answers to a virtual model name such as `svc:auto`. */
  strategyForModel(model: string): StrategyPlugin | undefined {
    return this.virtualModels.get(model.toLowerCase());
  }

  /** The strategy that declared `servesConcreteModels`, if one did. */
  concreteStrategy(): StrategyPlugin | undefined {
    return this.concrete;
  }

  /** The strategy that plans streams for `strategy`: its declared stand-in when loaded, else itself. */
  streamStrategy(strategy: StrategyPlugin): StrategyPlugin {
    return (strategy.streamStandIn !== undefined && this.strategies.get(strategy.streamStandIn)) || strategy;
  }

  /** The provider whose client credential requests in `format` carry, if one declared it. */
  clientCredentialOwner(format: WireFormat): ProviderPlugin | undefined {
    return this.credentialOwners.get(format);
  }

  /** Declarations that point nowhere, for the load log: they do not stop a start. */
  problems(): string[] {
    const problems: string[] = [];
    if (!this.concrete) problems.push("no loaded strategy declares servesConcreteModels: requests for concrete model names fail with strategy_missing unless routing.override names a strategy");
    for (const s of this.strategies.values())
      if (s.streamStandIn !== undefined && !this.strategies.has(s.streamStandIn))
        problems.push(`strategy "${s.name}" names streamStandIn "${s.streamStandIn}", which is not loaded: it plans its streams itself`);
    return problems;
  }

  virtualModelNames(): Array<{ model: string; strategy: string; description?: string }> {
    return [...this.virtualModels].map(([model, s]) => {
      // Keys are lowercased; the description is keyed by the name as declared.
      const declared = s.models?.find((m) => m.toLowerCase() === model);
      const own = declared !== undefined && s.modelDescriptions && Object.hasOwn(s.modelDescriptions, declared) ? s.modelDescriptions[declared] : undefined;
      return { model, strategy: s.name, description: own ?? s.description };
    });
  }

  list(): Registration[] {
    return [...this.sources].map(([key, source]) => {
      const [kind, name] = key.split(":") as [RelayPlugin["kind"], string];
      return { kind, name, source };
    });
  }
}
