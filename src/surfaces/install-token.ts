// This install's own admin token, for when none is configured: like Jupyter's
// and VS Code server's, a random secret in a file only the operator can read
// ($RELAY_HOME/admin-token, mode 0600), read by the server and by the CLI, and
// turned into the dashboard's session cookie by the link `relay dashboard` prints.
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { relayHome } from "../config/paths.ts";
import { randomHex, secretToken } from "../core/ids.ts";

export const installTokenFile = (env: Record<string, string | undefined>): string => join(relayHome(env), "admin-token");

/** The token in the file, created first when missing (32 random bytes, base64url). */
export function installToken(file: string): string {
  try {
    create(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new Error(`cannot create the admin token file ${file} (${(e as Error).message}); set RELAY_ADMIN_TOKEN instead`);
    }
  }
  // A file made readable by others (a copy, an editor) is closed again.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const token = readFileSync(file, "utf8").trim();
  if (token.length < 16) throw new Error(`the admin token file ${file} holds fewer than 16 characters; delete it and Relay writes a new one`);
  return token;
}

/** Written whole beside the file, then linked into place: a concurrent reader never sees it half written. */
function create(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomHex(8)}`;
  writeFileSync(tmp, `${secretToken(32)}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, file);
  } finally {
    unlinkSync(tmp);
  }
}
