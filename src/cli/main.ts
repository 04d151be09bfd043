// `relay <command>`: one binary for the local proxy, the cloud surfaces and
// the operator's tools. Usage errors exit 2 with one line saying why.
import { ConfigError } from "../config/load.ts";
import { createLogger, type Logger } from "../core/log.ts";
import { scrubSecrets } from "../core/secrets/known.ts";
import { VERSION } from "../version.ts";
import { COMMON_FLAGS, LISTEN_FLAGS, UsageError, parseFlags } from "./args.ts";
import { loadCommandConfig } from "./commands/context.ts";
import { cloudAdminCommand, isCloudAdmin } from "./commands/cloud.ts";
import { OPERATOR_COMMANDS } from "./commands/index.ts";
import { terminalFor } from "./output.ts";
import { serve } from "./serve.ts";
import { serviceCommand } from "./service.ts";
import { hooksCommand } from "./commands/hooks.ts";
import { writeAllSync } from "../runtime/fs.ts";
import { stdoutSink } from "../runtime/stdout.ts";

type Env = Record<string, string | undefined>;

const HELP: Record<string, string> = {
  main: `relay ${VERSION}: routes model requests to the cheapest model that will do the job

Usage: relay [command] [flags]

Commands:
  start      run the local proxy (default; port 4100)
  cloud      run the hosted/cloud surfaces on their own listener (port 4200)
  init       write a config file (interactive on a terminal; --yes for scripts)
  status     is Relay running: port, routing, spend today
  models     the models Relay routes to, with prices
  logs       recent requests (--follow to keep watching)
  budget     hourly and daily spend and limits; 'budget set' changes them
  dashboard  print a link that opens the dashboard signed in
  doctor     check the config, provider keys and reachability, port and plugins
  service    print a systemd unit for this binary (relay service install --print)
  hooks      'hooks dev': a local test server for workflow webhook triggers
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
  hooks: `Usage: relay hooks dev [--file workflows.json] [--port N] [--host ADDR]

A local test server for workflow webhook triggers: it answers the triggers of the
workflows in the file at /hooks/<any team>/<endpoint> (POST or PUT, as each says;
its headers, signature and rate limit checked as the cloud checks them), runs each
call's workflow in local mode with the provider keys of the environment
(OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) and prints each run as it starts and ends.
The file: {"workflows": [{"name", "steps": [...], "trigger": {"endpoint", ...}}]},
each entry a deploy body of POST /api/v1/workflows (docs/workflows.md "Triggers").

  --file, -f FILE   the workflows (default ./workflows.json)
  --port, -p N      port (default 4300; 0 picks a free one)
  --host ADDR       address (default 127.0.0.1)`,
  cloud: `Usage: relay cloud [--port N] [--host ADDR] [common flags]
       relay cloud teams create --name NAME [--plan free|maker|pro]
       relay cloud teams set-plan TEAM PLAN
       relay cloud teams list
       relay cloud keys create --team TEAM [--type standard|read-only] [--name NAME]
       relay cloud keys list --team TEAM
       relay cloud keys rotate KEY
       relay cloud keys revoke KEY
       relay cloud teams set-cloud TEAM on|off
       relay cloud users list [--team TEAM]
       relay cloud users reset-password EMAIL [--stdin]

Runs the hosted API on its own listener (default --port 4200). The teams and keys
subcommands work on the configured store directly (store.driver), running or not:
'teams create' prints the team's first standard key, and 'keys create' and 'keys rotate'
a new key, once (it is stored only as a hash). A rotated key stays valid until revoked.
'users reset-password' sets a new random password, printed once, or reads one from stdin
(--stdin), and revokes the user's access tokens. --json prints JSON.`,
  service: `Usage: relay service install --print [--user NAME]

Prints a hardened systemd unit that runs this binary; redirect it to /etc/systemd/system/relay.service.`,
  version: "Usage: relay version",
  init: `Usage: relay init [flags]

Writes a starting config file ($RELAY_HOME/config.json, or --config FILE). On a
terminal it asks for each setting; with --yes, or when not on a terminal, it uses
the flags and the defaults below without asking. Provider keys are detected in
the environment (e.g. ANTHROPIC_API_KEY) and only written to the file with --save-keys.

  --tier-simple MODEL      model for simple requests (default: picked from the providers with keys)
  --tier-moderate MODEL    model for moderate requests
  --tier-complex MODEL     model for complex requests
  --daily-budget USD       daily spend limit; 0 = none (default 0)
  --hourly-budget USD      hourly spend limit; 0 = none (default 0)
  -p, --port N             proxy port (default 4100)
  --host ADDR              proxy listen address (default 127.0.0.1)
  --save-keys              write the detected keys into the file
  -y, --yes                do not ask; use the flags and defaults
  --force                  overwrite an existing config file
  --config FILE            file to write`,
  status: `Usage: relay status [--host ADDR] [--port N] [--config FILE]

Shows whether Relay answers at the configured address (server.host/server.port,
or --host/--port), its routing state, today's spend and provider credentials.
Exits 1 when it is not running. Sends the admin token (RELAY_ADMIN_TOKEN, else $RELAY_HOME/admin-token).`,
  dashboard: `Usage: relay dashboard [--host ADDR] [--port N] [--config FILE]

Prints a link to the dashboard of the configured server that signs the browser
in: http://127.0.0.1:4100/dashboard/login#<admin token>. The token stays in the
link's fragment, which browsers do not send; the page trades it for a session
cookie (HttpOnly, SameSite=Strict, named per port).`,
  models: `Usage: relay models [--all] [--json] [--config FILE]

Lists the virtual models (svc:auto, svc:cascade, ...) and every model of the
catalog (the price data's, with the config's model overrides and the plugins'
models) whose provider has a key or needs none, as GET /v1/models does, with
prices in USD per million tokens.

  --all     also the models of providers without a key, with ROUTABLE and KEY columns
  --json    print the models as JSON (catalog entries; no virtual models)`,
  logs: `Usage: relay logs [--follow] [--json] [--limit N] [--host ADDR] [--port N] [--config FILE]

Prints the most recent requests from the running server's run log, oldest first.

  -n, --limit N    how many recent runs (1-1000, default 20)
  -f, --follow     keep polling every second and print new runs as they arrive
  --json           one JSON object per line`,
  budget: `Usage: relay budget [--host ADDR] [--port N] [--config FILE]
       relay budget set [--daily USD] [--hourly USD]

Shows the hourly and daily spend and limits of the running server. 'budget set'
changes the limits (0 = no limit); the server validates and saves them to its
config file.`,
  doctor: `Usage: relay doctor [--host ADDR] [--port N] [--config FILE]

Checks that the config file is valid, which providers have keys, that each
provider with a key answers at its base URL, that the port is free (or served by
a healthy Relay) and that plugins load. Exits 1 when any check fails.`,
};

export interface CliIO {
  out(s: string): void;
  err(s: string): void;
  /** Prints to stdout unscrubbed: only for output whose purpose is a secret (`relay dashboard`'s sign-in link). */
  unscrubbed?(s: string): void;
}

// Synchronous, and waiting for as long as the reader takes (a pager): a command's output
// (`relay logs --json | jq`) must arrive whole before the process exits.
const stdio: CliIO = { out: (s) => void writeAllSync(1, s, Infinity), err: (s) => void writeAllSync(2, s, Infinity) };

/** What any command prints, scrubbed of secrets: URL userinfo, known keys, key shapes (src/core/secrets). */
const scrubbed = (io: CliIO): CliIO => ({ out: (s) => io.out(scrubSecrets(s)), err: (s) => io.err(scrubSecrets(s)), unscrubbed: (s) => io.out(s) });

/** Run a command; resolves to the process exit code (a server resolves when it has shut down). */
export async function main(argv: string[], env: Env = process.env, raw: CliIO = stdio): Promise<number> {
  const io = scrubbed(raw);
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") return printHelp(io, "main");
  const command = first === "--version" ? "version" : !first || first.startsWith("-") ? "start" : first;
  const args = command === first || first === "--version" ? rest : argv;
  try {
    switch (command) {
      case "start":
      case "cloud": {
        if (command === "cloud" && isCloudAdmin(args)) return await cloudAdminCommand(args, { env, io, term: terminalFor(process, env), help: HELP.cloud! });
        const { values } = parseFlags(args, LISTEN_FLAGS, command);
        if (values.help) return printHelp(io, command);
        const loaded = loadCommandConfig(values, env, command === "start" ? "server" : "cloud");
        const log = createLogger(loaded.config.logLevel, stdoutSink());
        return await serve(command, loaded, env, log, io.err);
      }
      case "version": {
        const { values } = parseFlags(args, { help: COMMON_FLAGS.help }, command);
        if (values.help) return printHelp(io, command);
        io.out(`relay ${VERSION}\n`);
        return 0;
      }
      case "service":
        return serviceCommand(args, io, HELP.service!);
      case "hooks":
        return await hooksCommand(args, { env, io, term: terminalFor(process, env), help: HELP.hooks! });
      case "init":
      case "status":
      case "models":
      case "logs":
      case "budget":
      case "dashboard":
      case "doctor":
        return await OPERATOR_COMMANDS[command]!(args, { env, io, term: terminalFor(process, env), help: HELP[command]! });
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

export type { Logger };
