// This installation's id: random, made once and kept in $RELAY_HOME/install-id
// (0600), so that it outlives restarts. It is not a secret: Relay marks its
// vendor calls with it (see core/router/loop-guard.ts) to recognise a call
// that comes back to itself.
import { join } from "node:path";
import { randomHex } from "../core/ids.ts";
import { privateFileOnce } from "../runtime/fs.ts";

const FILE = "install-id";
const VALID = /^[0-9a-f]{16,64}$/;

/** The id kept in `home`, made on first use; an unwritable home gets an id for this process only (and `persisted: false`). */
export function installId(home: string): { id: string; persisted: boolean } {
  const made = randomHex(24);
  try {
    const kept = privateFileOnce(join(home, FILE), () => `${made}\n`).trim();
    if (VALID.test(kept)) return { id: kept, persisted: true };
  } catch {
    // fall through: an id for this process only
  }
  return { id: made, persisted: false };
}
