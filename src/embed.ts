// Relay in the caller's own process: the app `relay start` serves on its
// listener, as a fetch function, for code that embeds Relay rather than running
// the CLI (the in-process benches in bench/). No listener, no signal handling,
// no config-file watching: the caller owns the process. Exported by src/index.ts.
import { loadConfig } from "./config/load.ts";
import { createLogger } from "./core/log.ts";
import { Relay } from "./relay.ts";
import { stdoutSink } from "./runtime/stdout.ts";
import { buildFetch } from "./surfaces/index.ts";

export interface StartRelayOptions {
  /** The config file, as `relay start --config` takes it; defaults apply when it does not exist. */
  configFile: string;
  /** The environment Relay reads: RELAY_HOME, RELAY_* settings, provider keys and base URLs. */
  env: Record<string, string | undefined>;
  /** Where log lines (one JSON object each) go; default stdout. */
  logSink?: (line: string) => void;
}

export interface EmbeddedRelay {
  /** Answers one request as the `relay start` listener would. */
  fetch(request: Request): Promise<Response>;
  /** Flushes the run log and closes the store. */
  close(): Promise<void>;
}

export async function startRelay(opts: StartRelayOptions): Promise<EmbeddedRelay> {
  const loaded = loadConfig({ file: opts.configFile, env: opts.env });
  const relay = await Relay.create({ loaded, env: opts.env, log: createLogger(loaded.config.logLevel, opts.logSink ?? stdoutSink()) });
  const handle = buildFetch(relay, "start");
  return { fetch: (request) => handle(request), close: () => relay.close() };
}
