// Structured JSON logs, one object per line. Fields pass through `redact`
// so a secret handed to the logger by mistake is still masked, and every line
// but the access log's through `scrubSecrets`, so that a vendor's text quoted in
// a warning (an echoed key, a `?key=` in a URL) never reaches it.
import { redact, stripUrlCredentials } from "../config/redact.ts";
import { writeAllSync, writeAvailable } from "../runtime/fs.ts";
import { scrubSecrets } from "./secrets/known.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  setLevel(level: LogLevel): void;
  enabled(level: LogLevel): boolean;
  /** The access log's line for one answered request, at info. */
  access(line: AccessLine): void;
}

/** The access log's fields, in the order its lines print them. */
export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

let isoAtMs = Number.NaN;
let isoText = "";
/** The time of a line: formatted once per millisecond, since under load many lines share one. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoAtMs) {
    isoAtMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

export function createLogger(level: LogLevel, sink: (line: string) => void = stdoutSink()): Logger {
  let min = RANK[level];
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    // The line is assembled rather than built as one merged object: the access log writes one per request.
    const head = `{"time":"${isoNow()}","level":"${lvl}","msg":${JSON.stringify(msg)}`;
    // redact() already turns errors, at any depth, into { name, message }; a replacer function
    // would take JSON.stringify off its fast path.
    const rest = fields ? JSON.stringify(redact(fields)) : "{}";
    sink(scrubSecrets(rest === "{}" ? `${head}}\n` : `${head},${rest.slice(1)}\n`));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    setLevel: (l) => (min = RANK[l]),
    enabled: (l) => RANK[l] >= min,
    // The line emit() would write for these fields, written directly: the access log writes one per
    // request, and a fixed shape needs no walk for secrets (no field is named like one) nor a merge.
    access: (a) => {
      if (RANK.info < min) return;
      sink(
        `{"time":"${isoNow()}","level":"info","msg":"request","requestId":${JSON.stringify(a.requestId)},"method":${JSON.stringify(a.method)},` +
          `"path":${JSON.stringify(stripUrlCredentials(a.path))},"status":${a.status},"ms":${a.ms}}\n`,
      );
    },
  };
}

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
function stdoutSink(): (line: string) => void {
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
