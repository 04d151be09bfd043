// Child processes of a benchmark run. Every process the bench starts is
// tracked here so that one call (also wired to SIGINT/SIGTERM and to a fatal
// error) ends them all; a stray fake vendor would skew the next run.
import type { Subprocess } from "bun";

/** The bun binary running the bench, so children use the same runtime (not a wrapper script). */
export const BUN = process.execPath;

/** How much of a child's recent output is kept for error messages. */
const TAIL_CHARS = 4_000;

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

export function spawnChild(name: string, cmd: string[], env: Record<string, string> = {}): Child {
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  let output = "";
  const waiters: Array<{ marker: string; resolve: (line: string) => void }> = [];
  const onText = (text: string) => {
    output = (output + text).slice(-TAIL_CHARS);
    for (const line of text.split("\n")) {
      for (const w of waiters.filter((w) => line.includes(w.marker))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  // Always drain both pipes: a child blocked on a full pipe would stall the benchmark.
  void drain(proc.stdout, onText);
  void drain(proc.stderr, onText);

  const child: Child = {
    name,
    pid: proc.pid,
    exited: proc.exited,
    tail: () => output,
    lineWith(marker, timeoutMs) {
      const found = output.split("\n").find((l) => l.includes(marker));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no "${marker}" within ${timeoutMs} ms\n${output}`)), timeoutMs);
        waiters.push({ marker, resolve: (l) => (clearTimeout(timer), resolve(l)) });
        void proc.exited.then((code) => reject(new Error(`${name} exited with ${code} before "${marker}"\n${output}`)));
      });
    },
    async stop(graceMs = 3_000) {
      live.delete(child);
      await terminate(proc, graceMs);
    },
  };
  live.add(child);
  return child;
}

async function drain(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
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
