// The router without the server: what the SDK bundles to route calls in the caller's own process on
// Node, Bun or Deno. It holds the core (the codecs, the catalog, the guards, route()) and the
// built-in providers and strategies, which reach the platform only through src/runtime's seams;
// the store, the listener and plugin loading from files stay with the server (src/relay.ts). Each
// run's record goes to a callback instead of a run log, budgets count in memory, and the
// environment is the one handed in, never process.env.
import { ConfigError, layerConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import type { Catalog } from "./core/catalog/catalog.ts";
import { CoreError } from "./core/errors.ts";
import { randomHex } from "./core/ids.ts";
import { systemClock } from "./core/limits/clock.ts";
import { MemoryBudgetSpend } from "./core/limits/spend-memory.ts";
import { createLogger, type Logger } from "./core/log.ts";
import type { RouteCall } from "./core/router/call.ts";
import type { RouterDeps } from "./core/router/deps.ts";
import { closeParts, routerParts } from "./core/router/parts.ts";
import type { RouteResult } from "./core/router/result.ts";
import { route } from "./core/router/route.ts";
import type { RunRecord } from "./core/run-record.ts";
import type { RunSink } from "./core/telemetry/writer.ts";
import { definePlugin, type RelayPlugin } from "./plugin/api.ts";
import { assembleRegistry, buildCatalog, strategyOptionsProblems } from "./plugin/assemble.ts";
import type { LoadedPlugin } from "./plugin/host.ts";
import { vetPluginOptions } from "./plugin/options.ts";
import type { Registry } from "./plugin/registry.ts";

export * from "./plugin/api.ts";
export { ConfigError } from "./config/load.ts";
export type { Config } from "./config/schema.ts";
export type { CoreError, ErrorDetails } from "./core/errors.ts";
export type { CallFormat, Caller, RouteCall } from "./core/router/call.ts";
export { readableOf } from "./core/router/result.ts";
export type { RouteAnswer, RouteFacts, RouteFailure, RouteResult, RouteStream, StreamBody } from "./core/router/result.ts";
export type { RunEvent, RunRecord } from "./core/run-record.ts";

export interface RouterOptions {
  /** Settings as a config file holds them (any subset); validated and defaulted as the file is. */
  config?: Record<string, unknown>;
  /** Provider keys and base URLs (OPENAI_API_KEY, RELAY_OPENAI_BASE_URL, …) and RELAY_* settings; nothing is read from process.env. */
  env?: Record<string, string | undefined>;
  /** Providers and strategies registered after the built-ins, each replacing a built-in of its name. */
  plugins?: RelayPlugin[];
  /** Receives each run's record, once it ends: where the server writes its run log. A failure is logged. */
  onRecord?: (record: RunRecord) => void | Promise<void>;
  /** Receives the log's lines, one JSON object each; without it, nothing is logged. */
  log?: (line: string) => void;
}

export interface Router {
  /** Routes a call as the proxy does; never rejects (a refusal is a result of kind "error"). */
  route(call: RouteCall): Promise<RouteResult>;
  /** Waits for the records still being handed to onRecord; calls routed after it are refused (503 router_closed). */
  close(): Promise<void>;
}

/** Errors name the options they are about, as the server's name its config file. */
const CONFIG = "config";

/** Throws a ConfigError, as the server's start does, when the config or the plugins' options are invalid. */
export function createRouter(options: RouterOptions = {}): Router {
  const env = { ...options.env };
  const { config } = layerConfig(options.config ?? {}, CONFIG, env);
  const log = createLogger(config.logLevel, options.log ?? (() => {}));
  const { registry, plugins } = pluginRegistry(options.plugins ?? [], config, log);
  const parts = routerParts({ config, log, spend: new MemoryBudgetSpend(), runs: recordSink(options.onRecord, log), installId: randomHex(24), clock: systemClock });
  let catalog: Catalog | undefined;
  const deps: RouterDeps = {
    config: () => config,
    env,
    log,
    registry,
    // Built on first use: the price data is slow to load.
    get catalog() {
      return (catalog ??= buildCatalog(config, registry, plugins));
    },
    ...parts,
  };
  let closed = false;
  return {
    route: (call) => (closed ? Promise.resolve({ kind: "error", error: new CoreError(503, "router_closed", "This router was closed") }) : route(deps, call)),
    close: () => {
      closed = true;
      return closeParts(parts, log);
    },
  };
}

/** The built-ins and `given`, vetted as the server vets plugins it loads, except that any problem throws. */
function pluginRegistry(given: RelayPlugin[], config: Config, log: Logger): { registry: Registry; plugins: LoadedPlugin[] } {
  const strategies = config.routing.strategies;
  const defined = given.map((plugin, i) => ({ file: `plugins[${i}]`, plugin: definePlugin(plugin) }));
  const vetted = vetPluginOptions({ loaded: defined, failed: [] }, strategies);
  const { registry, registered, failed } = assembleRegistry(vetted.loaded, log);
  const remaining = strategyOptionsProblems(strategies, registry, log);
  const problems = [...failed.map((f) => `${f.file}: ${f.error}`), ...(remaining.length ? remaining : vetted.refused).map((p) => `${CONFIG}: ${p}`)];
  if (problems.length) throw new ConfigError(problems.join("; "));
  for (const problem of registry.problems()) log.warn("plugin declaration unmet", { problem });
  return { registry, plugins: registered };
}

/** The run log as a callback: each record handed over once; a callback that fails is logged, not retried. */
function recordSink(onRecord: RouterOptions["onRecord"], log: Logger): RunSink {
  return {
    async insertRuns(records) {
      if (!onRecord) return;
      for (const record of records) {
        try {
          await onRecord(record);
        } catch (e) {
          log.error("onRecord failed", { requestId: record.id, error: e });
        }
      }
    },
  };
}
