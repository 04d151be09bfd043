// Command-line parsing: strict, so an unknown flag or a bad value exits 2
// with one line saying what is wrong.
import { parseArgs } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

export const COMMON_FLAGS = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  "plugins-dir": { type: "string" },
  "log-level": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const LISTEN_FLAGS = {
  ...COMMON_FLAGS,
  port: { type: "string", short: "p" },
  host: { type: "string" },
} as const;

type FlagSpec = Record<string, { type: "string" | "boolean"; short?: string }>;

export function parseFlags<S extends FlagSpec>(argv: string[], spec: S, command: string) {
  try {
    return parseArgs({ args: argv, options: spec, strict: true, allowPositionals: true });
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0]!.replace(/^TypeError( \[\w+\])?: /, "").replace(/\. To specify a positional.*$/, "");
    throw new UsageError(`relay ${command}: ${msg}`);
  }
}

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Flags shaped like the config, for the top configuration layer. */
export function flagLayer(values: Record<string, unknown>, portKey: "server" | "cloud"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const listen: Record<string, unknown> = {};
  if (values.port !== undefined) {
    const v = String(values.port);
    if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--port: expected a port number 0-65535, got ${JSON.stringify(v)}`);
    listen.port = Number(v);
  }
  if (values.host !== undefined) {
    if (!String(values.host)) throw new UsageError("--host: expected an address");
    listen.host = values.host;
  }
  if (Object.keys(listen).length) out[portKey] = listen;
  if (values["log-level"] !== undefined) {
    if (!LEVELS.has(String(values["log-level"]))) throw new UsageError(`--log-level: expected one of debug, info, warn, error, got ${JSON.stringify(values["log-level"])}`);
    out.logLevel = values["log-level"];
  }
  if (values["data-dir"] !== undefined) out.dataDir = values["data-dir"];
  if (values["plugins-dir"] !== undefined) out.pluginsDirs = [values["plugins-dir"]];
  return out;
}
