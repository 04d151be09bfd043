// Structured JSON logs, one object per line. Fields pass through `redact`
// so a secret handed to the logger by mistake is still masked, and every line
// but the access log's through `scrubSecrets`, so that a vendor's text quoted in
// a warning (an echoed key, a `?key=` in a URL) never reaches it.
import { redact, stripUrlCredentials } from "../config/redact.ts";
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

/** A logger writing to `sink` (the server's: stdout, src/runtime/stdout.ts). */
export function createLogger(level: LogLevel, sink: (line: string) => void): Logger {
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
