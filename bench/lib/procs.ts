// Child processes of a benchmark run. Every process the bench starts is
// tracked here so that one call (also wired to SIGINT/SIGTERM and to a fatal
// error) ends them all; a stray fake vendor would skew the next run.
import type { Subprocess } from "bun";
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The bun binary running the bench, so children use the same runtime (not a wrapper script). */
export const BUN = process.execPath;

/** How much of a child's recent output is kept for error messages. */
const TAIL_CHARS = 4_000;
/** A child's output file is emptied once it passes this size (only its tail is ever read). */
const OUTPUT_FILE_MAX = 16 * 1024 * 1024;
/** How often a wait for an output line looks at the file. */
const LINE_POLL_MS = 20;

export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Last few KB of stdout+stderr, for diagnosing a child that failed. */
  tail(): string;
  /** Resolves with the first output line containing `marker`. */
  lineWith(marker: string, timeoutMs: number): Promise<string>;
  /** SIGTERM, then SIGKILL if still alive after graceMs. */
  stop(graceMs?: number): Promise<void>;
  readonly exited: Promise<number>;
}

const live = new Set<{ stop(): Promise<void> }>();

/** Registers a process spawned elsewhere (e.g. wrk) so that stopAll ends it too. */
export function tracked<P extends Subprocess>(proc: P): P {
  const entry = { stop: () => terminate(proc, 1_000) };
  live.add(entry);
  void proc.exited.then(() => live.delete(entry));
  return proc;
}

let outputDir: string | undefined;

/**
 * A child's stdout and stderr go to one file, not to a pipe this process reads: Relay's access log
 * writes a line per request, and reading and decoding it here cost this process ~2 µs of CPU per
 * request, on the same two cores as the processes being measured (the floor writes no log).
 * Writing the file costs Relay what writing its log to a file costs in production.
 */
function outputFile(name: string): { path: string; fd: number } {
  if (!outputDir) {
    const dir = (outputDir = mkdtempSync(join(tmpdir(), "relay-bench-out-")));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  const path = join(outputDir, `${name}-${live.size}-${Date.now()}.log`);
  // O_APPEND: after the file is emptied (see OUTPUT_FILE_MAX) the child's next write lands at its new end.
  return { path, fd: openSync(path, "a") };
}

/** `stderrPath`: the child's stderr goes to this file, whole (bench/gc.ts reads a collection log from it), not to its output file. */
export function spawnChild(name: string, cmd: string[], env: Record<string, string> = {}, opts: { stderrPath?: string } = {}): Child {
  const out = outputFile(name);
  const err = opts.stderrPath === undefined ? out.fd : openSync(opts.stderrPath, "a");
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: out.fd, stderr: err, stdin: "ignore" });
  const trim = setInterval(() => {
    if (fstatSync(out.fd).size > OUTPUT_FILE_MAX) ftruncateSync(out.fd, 0);
  }, 1_000);
  trim.unref();
  void proc.exited.then(() => {
    clearInterval(trim);
    closeSync(out.fd);
    if (err !== out.fd) closeSync(err);
  });
  const output = () => tailOf(out.path);

  const child: Child = {
    name,
    pid: proc.pid,
    exited: proc.exited,
    tail: output,
    async lineWith(marker, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const found = output().split("\n").find((l) => l.includes(marker));
        if (found) return found;
        if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${name} exited with ${proc.exitCode ?? proc.signalCode} before "${marker}"\n${output()}`);
        if (performance.now() > deadline) throw new Error(`${name}: no "${marker}" within ${timeoutMs} ms\n${output()}`);
        await Bun.sleep(LINE_POLL_MS);
      }
    },
    async stop(graceMs = 3_000) {
      live.delete(child);
      await terminate(proc, graceMs);
    },
  };
  live.add(child);
  return child;
}

/** The last TAIL_CHARS bytes of a file, as text. */
function tailOf(path: string): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, TAIL_CHARS));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

async function terminate(proc: Subprocess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await proc.exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()));
}

/** Ends every child on Ctrl-C / SIGTERM before the bench itself exits. */
export function stopAllOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => void stopAll().finally(() => process.exit(130)));
  }
}

/** Resident set size of a process in MB, from /proc (Linux only). */
export async function rssMb(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) / 1024;
}
