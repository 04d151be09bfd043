// This installation's id: random, made once and kept in $RELAY_HOME/install-id
// (0600), so that it outlives restarts. It is not a secret: Relay marks its
// vendor calls with it (see core/router/loop-guard.ts) to recognise a call
// that comes back to itself.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../core/ids.ts";

const FILE = "install-id";
const VALID = /^[0-9a-f]{16,64}$/;

/** The id kept in `home`, made on first use; an unwritable home gets an id for this process only (and `persisted: false`). */
export function installId(home: string): { id: string; persisted: boolean } {
  const file = join(home, FILE);
  const kept = readId(file);
  if (kept) return { id: kept, persisted: true };
  const id = randomHex(24);
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // `wx`: two Relays starting at once on a new home both end up with the one id written first.
    writeFileSync(file, `${id}\n`, { mode: 0o600, flag: "wx" });
    return { id, persisted: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") {
      const other = readId(file);
      if (other) return { id: other, persisted: true };
    }
    return { id, persisted: false };
  }
}

function readId(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8").trim();
    return VALID.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
