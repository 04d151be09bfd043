// Structured JSON logs, one object per line. Fields pass through `redact`
// so a secret handed to the logger by mistake is still masked.
import { redact } from "../config/redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  setLevel(level: LogLevel): void;
  enabled(level: LogLevel): boolean;
}

export function createLogger(level: LogLevel, sink: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  let min = RANK[level];
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    const rec = fields ? { time: new Date().toISOString(), level: lvl, msg, ...redact(fields) } : { time: new Date().toISOString(), level: lvl, msg };
    sink(`${JSON.stringify(rec, errorReplacer)}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    setLevel: (l) => (min = RANK[l]),
    enabled: (l) => RANK[l] >= min,
  };
}

function errorReplacer(_k: string, v: unknown): unknown {
  return v instanceof Error ? { name: v.name, message: v.message } : v;
}
