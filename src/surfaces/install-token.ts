// This install's own admin token, for when none is configured: like Jupyter's
// and VS Code server's, a random secret in a file only the operator can read
// ($RELAY_HOME/admin-token, mode 0600), read by the server and by the CLI, and
// turned into the dashboard's session cookie by the link `relay dashboard` prints.
import { join } from "node:path";
import { relayHome } from "../config/paths.ts";
import { secretToken } from "../core/ids.ts";
import { privateFileOnce } from "../runtime/fs.ts";

export const installTokenFile = (env: Record<string, string | undefined>): string => join(relayHome(env), "admin-token");

/** The token in the file, created first when missing (32 random bytes, base64url). */
export function installToken(file: string): string {
  let token: string;
  try {
    token = privateFileOnce(file, () => `${secretToken(32)}\n`).trim();
  } catch (e) {
    throw new Error(`cannot create the admin token file ${file} (${(e as Error).message}); set RELAY_ADMIN_TOKEN instead`);
  }
  if (token.length < 16) throw new Error(`the admin token file ${file} holds fewer than 16 characters; delete it and Relay writes a new one`);
  return token;
}
