// Runs Relay as a real child process (from source or the compiled binary) for
// the CLI, plugin, shutdown tests and the startup benchmark: free ports, temp
// homes, captured output, and a build of dist/relay only when it is stale.
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { closedPort } from "../fakes/vendor.ts";

export const REPO = resolve(import.meta.dir, "../..");
export const BUN = join(REPO, "node_modules/.bin/bun");
export const SERVER = join(REPO, "src/server.ts");
export const BINARY = join(REPO, "dist/relay");
/** Relay started from source: the same entry point the binary is built from. */
export const FROM_SOURCE = [BUN, SERVER];

export const freePort = closedPort;

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `relay-${prefix}-`));
}

/** A clean environment: the parent's provider keys and RELAY_* settings must not leak into the child. */
export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? home, RELAY_HOME: home, ...extra };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to completion; killed after timeoutMs so a hang fails the test instead of stalling it. */
export async function run(cmd: string[], opts: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<Finished> {
  const proc = Bun.spawn(cmd, { env: opts.env, cwd: opts.cwd ?? REPO, stdout: "pipe", stderr: "pipe", timeout: opts.timeoutMs ?? 15_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Accumulates a stream's text as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text(): string; done: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })();
  return { text: () => text, done };
}

export interface RunningRelay {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  stdout(): string;
  stderr(): string;
  /** stdout parsed as JSON log records (one per line). */
  logs(): Array<Record<string, any>>;
  /** Wait until a log record matches, or fail after timeoutMs. */
  waitForLog(match: (rec: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  /** Send a signal and wait for the exit code (SIGKILL after timeoutMs). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export function parseLogLines(text: string): Array<Record<string, any>> {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Spawn `cmd start --port <free>` and resolve once /health answers 200; rejects with the output if it exits first. */
export async function startRelayProcess(
  cmd: string[],
  opts: { env: Record<string, string>; cwd?: string; args?: string[]; timeoutMs?: number },
): Promise<RunningRelay> {
  const port = await freePort();
  const proc = Bun.spawn([...cmd, "start", "--port", String(port), ...(opts.args ?? [])], {
    env: opts.env,
    cwd: opts.cwd ?? REPO,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = collect(proc.stdout);
  const err = collect(proc.stderr);
  const url = `http://127.0.0.1:${port}`;
  const running: RunningRelay = {
    proc,
    url,
    stdout: out.text,
    stderr: err.text,
    logs: () => parseLogLines(out.text()),
    async waitForLog(match, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = running.logs().find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`log line not seen within ${timeoutMs} ms; stdout:\n${out.text()}`);
        await Bun.sleep(20);
      }
    },
    async stop(signal = "SIGTERM", timeoutMs = 15_000) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const killer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
      const code = await proc.exited;
      clearTimeout(killer);
      await Promise.all([out.done, err.done]);
      return code;
    },
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await Promise.all([out.done, err.done]);
      throw new Error(`relay exited (${proc.exitCode ?? proc.signalCode}) before answering /health\nstdout:\n${out.text()}\nstderr:\n${err.text()}`);
    }
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return running;
    if (Date.now() > deadline) {
      await running.stop("SIGKILL");
      throw new Error(`relay did not answer /health within the timeout\nstdout:\n${out.text()}\nstderr:\n${err.text()}`);
    }
    await Bun.sleep(25);
  }
}

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** Build dist/relay unless it is newer than every source it is built from. */
export async function ensureBinary(): Promise<string> {
  let built = 0;
  try {
    built = statSync(BINARY).mtimeMs;
  } catch {
    // not built yet
  }
  const inputs = Math.max(newestMtime(join(REPO, "src")), newestMtime(join(REPO, "deploy")), statSync(join(REPO, "package.json")).mtimeMs);
  if (built > inputs) return BINARY;
  const result = await run([BUN, "run", "build"], { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" }, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`bun run build failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return BINARY;
}
