// File-system seam: the only place the core touches files, so a Deno build can swap it.
import { type FSWatcher, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, watch, writeSync } from "node:fs";
import { dirname } from "node:path";

/** The file's text, or undefined when it does not exist. */
export function readTextFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Write via a fsynced temporary file and rename, so readers never see half a file. */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export const fileExists = existsSync;

/**
 * Call `onChange` (debounced) when any of the paths changes. Missing paths are
 * skipped. Returns a function that stops watching.
 */
export function watchPaths(paths: string[], onChange: () => void, debounceMs = 200): () => void {
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  for (const p of paths) {
    try {
      const w = watch(p, { persistent: false }, fire);
      w.on("error", () => {}); // a deleted folder ends its watcher; nothing to do
      watchers.push(w);
    } catch {
      // path does not exist (yet)
    }
  }
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
