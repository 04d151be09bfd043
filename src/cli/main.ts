// `relay <command>`: one binary for the local proxy, the cloud surfaces and
// the operator's tools. Usage errors exit 2 with one line saying why.
import { ConfigError, loadConfig, type LoadedConfig } from "../config/load.ts";
import { configFile } from "../config/paths.ts";
import { createLogger, type Logger } from "../core/log.ts";
import { VERSION } from "../version.ts";
import { COMMON_FLAGS, LISTEN_FLAGS, UsageError, flagLayer, parseFlags } from "./args.ts";
import { serve } from "./serve.ts";
import { serviceCommand } from "./service.ts";

type Env = Record<string, string | undefined>;

const HELP: Record<string, string> = {
  main: `relay ${VERSION}: routes model requests to the cheapest model that will do the job

Usage: relay [command] [flags]

Commands:
  start      run the local proxy (default; port 4100)
  cloud      run the hosted/cloud surfaces on their own listener (port 4200)
  service    print a systemd unit for this binary (relay service install --print)
  version    print the version

Common flags:
  --config FILE        config file (env RELAY_CONFIG; default $RELAY_HOME/config.json)
  --data-dir DIR       state directory (env RELAY_DATA_DIR)
  --plugins-dir DIR    plugins folder (env RELAY_PLUGINS_DIR)
  --log-level LEVEL    debug | info | warn | error
  -h, --help           help for any command

Run 'relay <command> --help' for a command's flags.`,
  start: `Usage: relay start [--port N] [--host ADDR] [common flags]

Runs the local proxy. Defaults: --port 4100 (env RELAY_PORT), --host 127.0.0.1 (env RELAY_HOST).
Listening beyond loopback requires an admin token (RELAY_ADMIN_TOKEN).`,
  cloud: `Usage: relay cloud [--port N] [--host ADDR] [common flags]

Runs the hosted/cloud surfaces on their own listener. Default --port 4200.`,
  service: `Usage: relay service install --print [--user NAME]

Prints a hardened systemd unit that runs this binary; redirect it to /etc/systemd/system/relay.service.`,
  version: "Usage: relay version",
};

export interface CliIO {
  out(s: string): void;
  err(s: string): void;
}

const stdio: CliIO = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** Run a command; resolves to the process exit code (a server resolves when it has shut down). */
export async function main(argv: string[], env: Env = process.env, io: CliIO = stdio): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") return printHelp(io, "main");
  const command = !first || first.startsWith("-") ? "start" : first;
  const args = command === first ? rest : argv;
  try {
    switch (command) {
      case "start":
      case "cloud": {
        const { values } = parseFlags(args, LISTEN_FLAGS, command);
        if (values.help) return printHelp(io, command);
        const loaded = load(values, env, command === "start" ? "server" : "cloud");
        const log = createLogger(loaded.config.logLevel);
        return await serve(command, loaded, env, log);
      }
      case "version": {
        const { values } = parseFlags(args, { help: COMMON_FLAGS.help }, command);
        if (values.help) return printHelp(io, command);
        io.out(`relay ${VERSION}\n`);
        return 0;
      }
      case "service":
        return serviceCommand(args, io, HELP.service!);
      case "help":
        return printHelp(io, rest[0] && HELP[rest[0]] ? rest[0] : "main");
      default:
        throw new UsageError(`unknown command "${command}" (try 'relay --help')`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      io.err(`relay: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

function printHelp(io: CliIO, command: string): number {
  io.out(`${HELP[command] ?? HELP.main}\n`);
  return 0;
}

function load(values: Record<string, unknown>, env: Env, listenKey: "server" | "cloud"): LoadedConfig {
  const file = configFile(env, values.config as string | undefined);
  return loadConfig({ file: file.path, env, flags: flagLayer(values, listenKey), requireFile: file.explicit });
}

export type { Logger };
