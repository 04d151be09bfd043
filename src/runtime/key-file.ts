// The master key's file (src/core/secrets/master-key.ts): $RELAY_HOME/master-key, made on first
// need like the admin token's file (privateFileOnce: 0600 in a 0700 folder, written whole), but
// refused, not quietly closed again, when its permissions let others read it: a key others could
// read may have leaked, and only the operator can judge that.
import { statSync } from "node:fs";
import { join } from "node:path";
import { relayHome } from "../config/paths.ts";
import { privateFileOnce } from "./fs.ts";

export const masterKeyFile = (env: Record<string, string | undefined>): string => join(relayHome(env), "master-key");

/** The key file's text, made by `make` when missing; throws when its group or others have any access. */
export function readKeyFile(path: string, make: () => string): string {
  const mode = modeOf(path);
  if (mode !== undefined && (mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, "0");
    throw new Error(
      `the master key file ${path} has mode ${octal}, so others may read it; Relay refuses to use it. ` +
        `If no one else could have read it, run chmod 600 ${path}; otherwise treat the key as leaked`,
    );
  }
  return privateFileOnce(path, make);
}

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}
