// The one redaction function: every place that prints or returns config (logs,
// /v1/config, /dashboard/config, `relay doctor`) goes through it. Free text from
// outside (vendor errors, log lines, CLI output) goes through src/core/secrets.

const SECRET_KEY = /(api[-_]?key|master[-_]?key|token|secret|password|authorization|credential)/i;
export const REDACTED = "[redacted]";

/** A field or variable name that holds a secret: its value is masked here and scrubbed by value elsewhere. */
export const isSecretName = (name: string): boolean => SECRET_KEY.test(name);

/** Deep copy with secret-looking fields masked and credentials stripped from URLs. */
export function redact<T>(value: T): T {
  return walk(value, "") as T;
}

function walk(value: unknown, key: string): unknown {
  if (value instanceof Error) return { name: value.name, message: stripUrlCredentials(value.message) };
  if (Array.isArray(value)) return value.map((v) => walk(v, key));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    // Not Object.entries: no pair arrays for every log line's fields.
    for (const k of Object.keys(value)) out[k] = walk((value as Record<string, unknown>)[k], k);
    return out;
  }
  if (typeof value === "string") {
    if (SECRET_KEY.test(key)) return value ? REDACTED : value;
    return stripUrlCredentials(value);
  }
  return value;
}

// Fix: credentials were stripped only when the whole string was a URL, so an
// error message such as "connect to postgres://user:pass@db failed" leaked them
// (tests/config/redact.test.ts). Userinfo is now replaced wherever a URL appears.
// Greedy up to the last "@" before the host, as URL parsers do, so a password containing "@" is covered too.
// Never across a quote, bracket or backslash (none is valid unencoded in userinfo): CLI output and log
// lines are scrubbed as whole JSON texts, where the run could otherwise reach an "@" in a later field.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'`<>\\[\]{}]+@/gi;

/** `s` with the userinfo of every URL in it replaced. */
export function stripUrlCredentials(s: string): string {
  return s.includes("@") ? s.replace(URL_USERINFO, `$1${REDACTED}@`) : s;
}
