/**
 * Running the real agent CLIs (installed from npm as pinned devDependencies) offline: each run
 * gets its own HOME (and working folder) in a temp dir, and every proxy variable points at a local
 * sentinel that records what it was asked for, so a CLI that tried to reach anything but the local Relay shows.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BIN = join(import.meta.dir, "..", "..", "node_modules", ".bin");

/** Per test: the CLIs take seconds to start, and the machine is shared. */
export const CLI_TEST_TIMEOUT_MS = 90_000;
const RUN_TIMEOUT_MS = 75_000;

/**
 * The CLI's path, or undefined when it is not installed (its tests are skipped). Under CI a
 * missing CLI is a failure: `npm ci` installs both.
 */
export function cliPath(name: "claude" | "codex"): string | undefined {
  const path = join(BIN, name);
  if (existsSync(path)) return path;
  if (process.env.CI === "true") throw new Error(`${path} is missing: run npm ci (it installs the pinned CLIs)`);
  return undefined;
}

export interface Sandbox {
  home: string;
  cwd: string;
  /** What reached the sentinel proxy (a request line such as `CONNECT host:443`): anything but 127.0.0.1/localhost. */
  outbound(): string[];
  /** Environment with nothing inherited but PATH: the temp HOME and the sentinel proxy. */
  env(extra: Record<string, string>): Record<string, string>;
  close(): void;
}

export function sandbox(prefix: string): Sandbox {
  const home = mkdtempSync(join(tmpdir(), `${prefix}-home-`));
  const cwd = mkdtempSync(join(tmpdir(), `${prefix}-cwd-`));
  const attempts: string[] = [];
  const sentinel = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      // The request line says where the CLI wanted to go; the connection is then refused.
      data(socket, bytes) {
        attempts.push(bytes.toString().split("\r\n", 1)[0]!);
        socket.end();
      },
    },
  });
  const proxy = `http://127.0.0.1:${sentinel.port}`;
  return {
    home,
    cwd,
    outbound: () => attempts,
    env: (extra) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      TMPDIR: tmpdir(),
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      ALL_PROXY: proxy,
      http_proxy: proxy,
      https_proxy: proxy,
      all_proxy: proxy,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
      ...extra,
    }),
    close() {
      sentinel.stop(true);
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a CLI to its end (killed after RUN_TIMEOUT_MS), stdin closed. */
export async function runCli(argv: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill(), RUN_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
