// The composition root: builds every long-lived part of a running Relay from
// the loaded configuration, and takes them down again in order.
import { join } from "node:path";
import { dataDir, pluginDirs } from "./config/paths.ts";
import type { LoadedConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import { Catalog } from "./core/catalog/catalog.ts";
import { ControlState } from "./core/control.ts";
import { MemoryBudgetGuard } from "./core/limits/budget.ts";
import { CooldownTracker } from "./core/limits/cooldown.ts";
import { MemoryRateLimiter } from "./core/limits/rate-limit.ts";
import type { Logger } from "./core/log.ts";
import type { RouterDeps } from "./core/router/deps.ts";
import { RunWriter } from "./core/telemetry/writer.ts";
import type { FailedPlugin, LoadedPlugin } from "./plugin/host.ts";
import { loadPlugins } from "./plugin/host.ts";
import { Registry } from "./plugin/registry.ts";
import { builtinProviders } from "./providers/index.ts";
import { openStore } from "./store/open.ts";
import type { Store } from "./store/types.ts";
import { builtinStrategies } from "./strategies/index.ts";

export interface RelayOptions {
  loaded: LoadedConfig;
  env: Record<string, string | undefined>;
  log: Logger;
}

export class Relay implements RouterDeps {
  readonly startedAt = Date.now();
  readonly registry = new Registry();
  readonly control = new ControlState();
  readonly rate = new MemoryRateLimiter();
  readonly cooldown: CooldownTracker;
  readonly budget: MemoryBudgetGuard;
  readonly writer: RunWriter;
  catalog: Catalog;
  plugins: { loaded: LoadedPlugin[]; failed: FailedPlugin[] } = { loaded: [], failed: [] };
  private closed = false;

  private constructor(
    public loaded: LoadedConfig,
    readonly env: Record<string, string | undefined>,
    readonly log: Logger,
    readonly store: Store,
  ) {
    const c = loaded.config;
    this.catalog = new Catalog({ overrides: c.models });
    this.cooldown = new CooldownTracker(cooldownOptions(c));
    this.budget = new MemoryBudgetGuard({ store, limits: budgetLimits(c) });
    this.writer = new RunWriter(store, { onError: (e) => log.error("run log write failed", { error: e }) });
    this.control.routingEnabled = c.routing.enabled;
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  private readonly pruneTimer: ReturnType<typeof setInterval>;

  /** Drop runs older than the retention period. */
  async prune(): Promise<number> {
    const before = Date.now() - this.config().telemetry.retentionDays * 86_400_000;
    try {
      return await this.store.prune(before);
    } catch (e) {
      this.log.error("pruning the run log failed", { error: e });
      return 0;
    }
  }

  static async create(opts: RelayOptions): Promise<Relay> {
    const c = opts.loaded.config;
    const store =
      c.store.driver === "postgres"
        ? await openStore({ driver: "postgres", url: requirePostgresUrl(c) })
        : await openStore({ driver: "sqlite", path: join(dataDir(c, opts.env), "relay.db") });
    const relay = new Relay(opts.loaded, opts.env, opts.log, store);
    for (const p of builtinProviders) relay.registry.register(p, "builtin");
    for (const s of builtinStrategies) relay.registry.register(s, "builtin");
    await relay.loadUserPlugins();
    await relay.prune();
    return relay;
  }

  config(): Config {
    return this.loaded.config;
  }

  /** Load (or reload) user plugins; built-ins stay registered. */
  async loadUserPlugins(version = 0): Promise<void> {
    const dirs = pluginDirs(this.config(), this.env);
    const result = await loadPlugins(dirs, version);
    for (const { file, plugin } of result.loaded) {
      const replaced = this.registry.register(plugin, file);
      if (plugin.kind === "provider" && plugin.models) this.catalog.addProviderModels(plugin.models);
      this.log.info("plugin loaded", { file, kind: plugin.kind, name: plugin.name, ...(replaced ? { replaced } : {}) });
    }
    for (const f of result.failed) this.log.error("plugin failed to load", { file: f.file, error: f.error });
    this.plugins = result;
  }

  /** Apply a new validated configuration to the running parts. */
  applyConfig(loaded: LoadedConfig): void {
    this.loaded = loaded;
    const c = loaded.config;
    this.catalog = new Catalog({ overrides: c.models });
    for (const { plugin } of this.plugins.loaded) if (plugin.kind === "provider" && plugin.models) this.catalog.addProviderModels(plugin.models);
    this.cooldown.setOptions(cooldownOptions(c));
    this.budget.setLimits(budgetLimits(c));
    this.log.setLevel(c.logLevel);
  }

  /** Flush the run log and release the store; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pruneTimer);
    await this.writer.close().catch((e) => this.log.error("run log flush failed", { error: e }));
    await this.store.close();
  }
}

const PRUNE_EVERY_MS = 3_600_000;

const cooldownOptions = (c: Config) => ({
  failureThreshold: c.cooldown.failures,
  windowMs: c.cooldown.windowSec * 1000,
  cooldownMs: c.cooldown.durationSec * 1000,
});

const budgetLimits = (c: Config) => ({
  hourlyUsd: c.limits.hourlyUsd > 0 ? c.limits.hourlyUsd : undefined,
  dailyUsd: c.limits.dailyUsd > 0 ? c.limits.dailyUsd : undefined,
});

function requirePostgresUrl(c: Config): string {
  if (!c.store.postgresUrl) throw new Error("store.driver is postgres but store.postgresUrl (env RELAY_POSTGRES_URL) is not set");
  return c.store.postgresUrl;
}
