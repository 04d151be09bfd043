// What every operator command receives, and the configuration it runs with
// (the same layers as `relay start`: defaults < file < env < flags).
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import { configFile } from "../../config/paths.ts";
import { flagLayer } from "../args.ts";
import type { CliIO } from "../main.ts";
import type { Terminal } from "../output.ts";

export type Env = Record<string, string | undefined>;

export interface CommandContext {
  env: Env;
  io: CliIO;
  term: Terminal;
  /** The command's --help text. */
  help: string;
}

export type Command = (args: string[], ctx: CommandContext) => Promise<number>;

export const CONFIG_FLAGS = {
  config: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Flags of commands that talk to a running server. */
export const SERVER_FLAGS = {
  ...CONFIG_FLAGS,
  host: { type: "string" },
  port: { type: "string", short: "p" },
} as const;

/** Load the config the way `relay start` does: defaults < file < env < these flags. */
export function loadCommandConfig(values: Record<string, unknown>, env: Env, listenKey: "server" | "cloud" = "server"): LoadedConfig {
  const file = configFile(env, values.config as string | undefined);
  return loadConfig({ file: file.path, env, flags: flagLayer(values, listenKey), requireFile: file.explicit });
}

export function printCommandHelp(ctx: CommandContext): number {
  ctx.io.out(`${ctx.help}\n`);
  return 0;
}
