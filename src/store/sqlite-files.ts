// The SQLite store's files are private to the user Relay runs as: the run log
// holds vendor errors, session keys and spend. Its folder is created 0700, and
// the database is created 0600 before SQLite opens it, since SQLite gives the
// -wal and -shm files it makes the database's own mode. A umask can only narrow
// these modes, never widen them.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The database's folder and file, created private; a database left readable by an older Relay is narrowed, with its companions. */
export function preparePrivateDatabase(path: string): void {
  // An existing folder keeps its mode: it may be one the operator chose and shares on purpose.
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) narrow(file);
}

/** Takes group and other users' access away from a file, if it exists. */
function narrow(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return; // not there
  }
  if (mode & 0o077) chmodSync(path, mode & PRIVATE_DIR_MODE);
}
