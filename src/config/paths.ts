// Where Relay keeps its files. RELAY_HOME (default ~/.relay) holds the config,
// the data dir and user plugins; built-in example plugins sit beside the binary.
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Config } from "./schema.ts";

type Env = Record<string, string | undefined>;

export function relayHome(env: Env): string {
  return resolve(env.RELAY_HOME || join(homedir(), ".relay"));
}

export function configFile(env: Env, flag?: string): { path: string; explicit: boolean } {
  const named = flag ?? env.RELAY_CONFIG;
  return named ? { path: resolve(named), explicit: true } : { path: join(relayHome(env), "config.json"), explicit: false };
}

export function dataDir(config: Config, env: Env): string {
  return config.dataDir ? resolve(config.dataDir) : join(relayHome(env), "data");
}

/** True inside a `bun build --compile` executable, whose sources live in a virtual /$bunfs. */
export const isCompiled = import.meta.path.startsWith("/$bunfs") || /^[A-Z]:\\~BUN/.test(import.meta.path);

export function pluginDirs(config: Config, env: Env): string[] {
  if (config.pluginsDirs.length) return config.pluginsDirs.map((d) => (isAbsolute(d) ? d : resolve(d)));
  const beside = isCompiled ? join(dirname(process.execPath), "plugins") : resolve(import.meta.dir, "../../plugins");
  return [beside, join(relayHome(env), "plugins")];
}
