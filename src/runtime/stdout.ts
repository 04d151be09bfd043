// Runtime seam: the log's default destination, stdout, written synchronously
// in batches (Node's and Bun's process and file descriptors). A runtime
// without them hands createLogger (src/core/log.ts) a sink of its own.
import { writeAllSync, writeAvailable } from "./fs.ts";

let stdout: ((line: string) => void) | undefined;

const STDOUT_FD = 1;
/** What a non-blocking stdout that stopped draining may hold before lines are dropped (and counted). */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
const RETRY_MS = 10;

/**
 * Lines go to stdout in one write per event-loop turn (or per 64 KB): at the default level the
 * access log writes a line per request, and a write call each cost ~2.5 µs of system time.
 * The write is synchronous (see writeAllSync for what Bun's asynchronous stdout lost at exit;
 * tests/cli/log-output.test.ts). What is pending is written when the process exits; a kill -9 can
 * lose at most one turn of lines. A stdout that is non-blocking and full keeps the rest for a
 * retry, up to MAX_BACKLOG_BYTES.
 */
export function stdoutSink(): (line: string) => void {
  if (stdout) return stdout;
  let pending = "";
  let scheduled = false;
  let backlog: Uint8Array | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let dropped = 0;

  /** Writes what it can; true when nothing is left. */
  const writeOut = (): boolean => {
    scheduled = false;
    if (dropped > 0 && backlog === undefined) {
      pending = `{"time":"${new Date().toISOString()}","level":"warn","msg":"log lines dropped: stdout did not drain","dropped":${dropped}}\n${pending}`;
      dropped = 0;
    }
    if (pending === "" && backlog === undefined) return true;
    const fresh = pending === "" ? undefined : Buffer.from(pending);
    pending = "";
    const bytes = backlog === undefined ? fresh! : fresh === undefined ? backlog : Buffer.concat([backlog, fresh]);
    try {
      const written = writeAvailable(STDOUT_FD, bytes);
      backlog = written < bytes.length ? bytes.subarray(written) : undefined;
    } catch {
      backlog = undefined; // stdout is closed (EPIPE, EBADF): there is nowhere left to log to
    }
    return backlog === undefined;
  };
  const flush = (): void => {
    if (writeOut() || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      flush();
    }, RETRY_MS);
    retry.unref?.();
  };
  // The last lines (often why the process exits) must not be lost: a full stdout is waited out briefly.
  process.on("exit", () => {
    writeOut();
    if (backlog !== undefined) writeAllSync(STDOUT_FD, backlog);
  });
  stdout = (line) => {
    if (backlog !== undefined && backlog.length + pending.length >= MAX_BACKLOG_BYTES) {
      dropped++;
      return;
    }
    pending += line;
    if (pending.length >= 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return stdout;
}
