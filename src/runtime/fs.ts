// File-system seam: the only place the core touches files, so a Deno build can swap it.
import { type FSWatcher, chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, watch, writeFileSync, writeSync } from "node:fs";
import { mkdir, open, readFile, rename, stat } from "node:fs/promises";
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

export class FileTooLarge extends Error {
  override name = "FileTooLarge";
}

/**
 * The file's text, or undefined when it does not exist, read without blocking the thread; a file
 * over `maxBytes` is not read at all (FileTooLarge). For files a request handler reads.
 */
export async function readTextFileAsync(path: string, maxBytes: number): Promise<string | undefined> {
  try {
    const size = (await stat(path)).size;
    if (size > maxBytes) throw new FileTooLarge(`${path} is ${size} bytes, over the ${maxBytes}-byte limit`);
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * Write via a fsynced temporary file and rename, so readers never see half a file. Asynchronous:
 * the admin API writes the config file from the thread that serves requests, and an fsync can take
 * hundreds of milliseconds on a busy disk.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  // A folder made here ($RELAY_HOME on a first `relay init`) is private, like the file (0600).
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const file = await open(tmp, "w", 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

export const fileExists = existsSync;

/**
 * The text of a private file (0600, in a 0700 folder) that is written once and then kept: made by
 * `make` when missing, written whole beside it and linked into place, so that a concurrent reader
 * never sees half of it and two processes starting at once both keep the first one written. A file
 * made readable by others since (a copy, an editor) is closed again. Throws when it can be neither
 * read nor made.
 */
export function privateFileOnce(path: string, make: () => string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, make(), { mode: 0o600, flag: "wx" });
    try {
      linkSync(tmp, path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      unlinkSync(tmp);
    }
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return readFileSync(path, "utf8");
}

/**
 * Writes as much of `bytes` to the open descriptor `fd` as it takes now and returns the count. A
 * blocking descriptor takes everything; a non-blocking one that is full (EAGAIN) may take less.
 */
export function writeAvailable(fd: number, bytes: Uint8Array): number {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") return written;
      throw e;
    }
  }
  return written;
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `data` to `fd` before returning, as Node does for files and pipes on Linux. Bun's
 * `process.stdout.write` to a pipe keeps what the reader has not taken in its own buffer, and a
 * process that exits soon after lost it: 400 KB written then `process.exit` arrived cut at 219 KB
 * in about half of eight concurrent runs. A full non-blocking descriptor is waited out for up to
 * `timeoutMs`. False when not everything was written (the reader is gone, or the time ran out).
 */
export function writeAllSync(fd: number, data: string | Uint8Array, timeoutMs = 2_000): boolean {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const deadline = performance.now() + timeoutMs;
  let written = 0;
  try {
    for (;;) {
      written += writeAvailable(fd, bytes.subarray(written));
      if (written >= bytes.length) return true;
      if (performance.now() >= deadline) return false;
      Atomics.wait(SLEEPER, 0, 0, 1);
    }
  } catch {
    return false; // EPIPE, EBADF: nobody is reading any more
  }
}

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
