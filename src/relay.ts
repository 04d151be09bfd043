// The composition root: builds every long-lived part of a running Relay from
// the loaded configuration, and takes them down again in order.
import { dirname } from "node:path";
import { installId } from "./config/install-id.ts";
import { pluginDirs, relayHome } from "./config/paths.ts";
import { ConfigError, loadConfig, type LoadedConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import type { Catalog } from "./core/catalog/catalog.ts";
import type { ControlState } from "./core/control.ts";
import type { MemoryBudgetGuard } from "./core/limits/budget-memory.ts";
import { type Clock, systemClock } from "./core/limits/clock.ts";
import type { CooldownTracker } from "./core/limits/cooldown.ts";
import type { HealthBoard } from "./core/limits/health.ts";
import type { MemoryRateLimiter } from "./core/limits/rate-limit.ts";
import type { Logger } from "./core/log.ts";
import type { RouterDeps } from "./core/router/deps.ts";
import type { LoopGuard } from "./core/router/loop-guard.ts";
import { closeParts, reconfigureParts, routerParts } from "./core/router/parts.ts";
import { MeshBoard } from "./core/mesh/board.ts";
import { MeshOutbox } from "./core/mesh/outbox.ts";
import { MeshSync } from "./core/mesh/sync.ts";
import type { RunWriter } from "./core/telemetry/writer.ts";
import { pruneTeamRuns } from "./core/tenancy/retention.ts";
import { BenchmarkRunner } from "./core/benchmarks/runner.ts";
import { WorkflowRunner } from "./core/workflows/cloud/runner.ts";
import { Scheduler } from "./core/workflows/cloud/scheduler.ts";
import { WebhookDispatcher } from "./core/webhooks/dispatcher.ts";
import { assembleRegistry, buildCatalog, strategyOptionsProblems } from "./plugin/assemble.ts";
import type { FailedPlugin, LoadedPlugin } from "./plugin/host.ts";
import { loadPlugins } from "./plugin/host.ts";
import { vetPluginOptions } from "./plugin/options.ts";
import { Registry } from "./plugin/registry.ts";
import { watchPaths } from "./runtime/fs.ts";
import { openConfiguredStore } from "./store/open.ts";
import type { Store } from "./store/types.ts";

export interface RelayOptions {
  loaded: LoadedConfig;
  env: Record<string, string | undefined>;
  log: Logger;
  /** Time source of the guards; tests pass a ManualClock. */
  clock?: Clock;
}

export class Relay implements RouterDeps {
  readonly startedAt = Date.now();
  /** Replaced whole on plugin reload; in-flight requests keep the plugins they started with. */
  registry = new Registry();
  readonly control: ControlState;
  readonly rate: MemoryRateLimiter;
  readonly cooldown: CooldownTracker;
  readonly health: HealthBoard;
  readonly budget: MemoryBudgetGuard;
  readonly writer: RunWriter;
  readonly loop: LoopGuard;
  /** The mesh (mesh.enabled): outcomes to send, what was received, and the syncs; the proxy surface starts them (src/surfaces/control/mesh.ts). */
  readonly mesh: MeshOutbox;
  readonly meshBoard: MeshBoard;
  readonly meshSync: MeshSync;
  /** Sends the hosted teams' webhook deliveries; the cloud listener starts it (src/surfaces/cloud/index.ts). */
  readonly webhookDispatcher = new WebhookDispatcher(this);
  /** Runs the hosted teams' queued benchmark runs; the cloud listener starts it (src/surfaces/cloud/index.ts). */
  readonly benchmarkRunner = new BenchmarkRunner(this);
  /** Runs (and resumes) the hosted teams' triggered workflow runs; the cloud listener starts it (src/surfaces/cloud/index.ts). */
  readonly workflowRunner = new WorkflowRunner(this, () => this.config().cloud.workflowLeaseMs);
  /** Fires the hosted teams' workflow schedules; the cloud listener starts it (src/surfaces/cloud/index.ts). */
  readonly scheduler = new Scheduler(this);
  private catalogCache: Catalog | undefined;
  plugins: { loaded: LoadedPlugin[]; failed: FailedPlugin[] } = { loaded: [], failed: [] };
  private closed = false;

  private constructor(
    public loaded: LoadedConfig,
    readonly env: Record<string, string | undefined>,
    readonly log: Logger,
    readonly store: Store,
    /** The time source of the guards and of the hosted jobs (retention, webhook retries); tests pass a ManualClock. */
    readonly clock: Clock,
  ) {
    const install = installId(relayHome(env));
    if (!install.persisted) log.warn("could not keep this install's id in RELAY_HOME; a new one is used until the next start", { home: relayHome(env) });
    this.mesh = new MeshOutbox(() => this.config().mesh.enabled);
    this.meshBoard = new MeshBoard(() => this.config().mesh.successBar);
    this.meshSync = new MeshSync({ config: () => this.config(), outbox: this.mesh, board: this.meshBoard, log });
    ({ control: this.control, rate: this.rate, cooldown: this.cooldown, health: this.health, budget: this.budget, writer: this.writer, loop: this.loop } = routerParts({
      config: loaded.config,
      log,
      spend: store.budgets,
      runs: store.runs,
      installId: install.id,
      clock,
      healthFeeds: [this.meshBoard],
    }));
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  private readonly pruneTimer: ReturnType<typeof setInterval>;

  /**
   * Drop runs of no team, and stored Responses API answers, older than the retention period, and each
   * hosted team's runs older than its plan keeps (src/core/tenancy/retention.ts); returns how many runs.
   */
  async prune(): Promise<number> {
    // One time source for every retention (relay.clock: a test moves it).
    const now = this.clock.now();
    const before = now - this.config().telemetry.retentionDays * 86_400_000;
    try {
      const [runs, , teamRuns] = await Promise.all([
        this.store.runs.prune(before),
        this.store.responses.prune(before),
        pruneTeamRuns(this.store.teams, this.store.runs, now),
        // The mesh's aggregates read a day of outcomes; they are kept as long as the run log.
        this.store.mesh.prune(before),
      ]);
      return runs + teamRuns;
    } catch (e) {
      // A close cuts a prune short; that is not a failure.
      if (!this.closed) this.log.error("pruning the run log failed", { error: e });
      return 0;
    }
  }

  static async create(opts: RelayOptions): Promise<Relay> {
    const c = opts.loaded.config;
    const store = await openConfiguredStore(c, opts.env, (message) => opts.log.warn(message));
    const relay = new Relay(opts.loaded, opts.env, opts.log, store, opts.clock ?? systemClock);
    // Invalid strategy options stop the start: served, they would fail every request that uses them.
    const problems = await relay.loadUserPlugins();
    if (problems.length) {
      await relay.close();
      throw new ConfigError(`config file ${opts.loaded.file}: ${problems.join("; ")}`);
    }
    // Not awaited: after a long stop there can be days of runs to delete, and the store deletes them
    // off the request thread, so the server can listen meanwhile.
    void relay.prune();
    return relay;
  }

  config(): Config {
    return this.loaded.config;
  }

  /**
   * Load (or reload) user plugins into a fresh registry of built-ins, then swap it in. A strategy
   * plugin whose configured options fail its schema is reported failed and left out. Returns the
   * options problems; when the registry as a whole still has some (a built-in is back in place of a
   * left-out plugin and the options are not its), the running registry is kept.
   */
  async loadUserPlugins(version = 0): Promise<string[]> {
    const strategies = this.config().routing.strategies;
    const vetted = vetPluginOptions(await loadPlugins(pluginDirs(this.config(), this.env), version), strategies);
    const { registry, registered, failed: conflicts } = assembleRegistry(vetted.loaded, this.log);
    const failed = [...vetted.failed, ...conflicts];
    for (const f of failed) this.log.error("plugin failed to load", { file: f.file, error: f.error });
    const remaining = strategyOptionsProblems(strategies, registry, this.log);
    if (remaining.length) {
      // At start (version 0) the caller fails the start with these problems instead.
      if (version > 0) this.log.error("plugins not reloaded: the strategy options do not fit them; keeping the running plugins", { problems: remaining });
      return remaining;
    }
    for (const problem of registry.problems()) this.log.warn("plugin declaration unmet", { problem });
    this.plugins = { loaded: registered, failed };
    this.registry = registry;
    this.catalogCache = undefined;
    return vetted.refused;
  }

  /** Load lazily-built data while idle so the first request does not pay for it. */
  warmUp(): void {
    void this.catalog;
  }

  /** Built on first use (the price data is slow to load) and again after config or plugin changes. */
  get catalog(): Catalog {
    this.catalogCache ??= buildCatalog(this.config(), this.registry, this.plugins.loaded);
    return this.catalogCache;
  }

  /** Hot reload: re-read the config file and plugin folders when they change. */
  watch(): void {
    let version = 0;
    const stopConfig = watchPaths([dirname(this.loaded.file)], () => this.reloadConfig());
    const stopPlugins = watchPaths(pluginDirs(this.config(), this.env), () => void this.loadUserPlugins(++version));
    this.unwatch = () => {
      stopConfig();
      stopPlugins();
    };
  }

  private unwatch = () => {};

  /** Re-read the config file; an invalid file is logged and the running config kept. */
  reloadConfig(): void {
    try {
      const next = loadConfig({ file: this.loaded.file, env: this.env, flags: this.loaded.flags });
      if (JSON.stringify(next.config) === JSON.stringify(this.config())) return;
      const problems = strategyOptionsProblems(next.config.routing.strategies, this.registry, this.log);
      if (problems.length) throw new ConfigError(`config file ${next.file}: ${problems.join("; ")}`);
      this.applyConfig(next);
      this.log.info("config reloaded", { file: next.file });
    } catch (e) {
      this.log.error("config reload failed; keeping the running config", { error: e });
    }
  }

  /** Apply a new validated configuration to the running parts. */
  applyConfig(loaded: LoadedConfig): void {
    this.loaded = loaded;
    this.catalogCache = undefined;
    reconfigureParts(this, loaded.config);
    this.log.setLevel(loaded.config.logLevel);
  }

  /** Flush the run log and release the store; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pruneTimer);
    this.meshSync.stop();
    await this.webhookDispatcher.stop();
    await this.benchmarkRunner.stop();
    await this.scheduler.stop();
    await this.workflowRunner.stop();
    this.unwatch();
    await closeParts(this, this.log);
    await this.store.close();
  }
}

const PRUNE_EVERY_MS = 3_600_000;

