// Host names judged by parsing, never by prefix: "127.0.0.1.attacker.example"
// starts like a loopback address and is not one. Loopback means the literal
// addresses 127.0.0.0/8 and ::1 and the exact name `localhost`.

/** Four dotted decimal octets (no leading zeros, each 0-255), the first 127. */
function isLoopbackV4(s: string): boolean {
  let octets = 0;
  let value = -1;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; // a final "." closes the last octet
    if (c === 46) {
      if (digits === 0 || value > 255 || (octets === 0 && value !== 127)) return false;
      octets++;
      value = -1;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && value === 0) return false; // a leading zero reads as octal elsewhere
      value = digits === 0 ? c - 48 : value * 10 + (c - 48);
      digits++;
    } else {
      return false;
    }
  }
  return octets === 4;
}

/**
 * A host name as it appears in a URL or a Host header (lowercase, IPv6 in
 * brackets, as the HTTP server normalizes it): `localhost`, 127.x.x.x or [::1].
 */
export function isLoopbackName(name: string): boolean {
  return name === "localhost" || name === "[::1]" || isLoopbackV4(name);
}

/** A configured listen address in any spelling (`::1`, `[::1]`, `0:0::1`, `LOCALHOST`). */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  if (!h.includes(":")) return isLoopbackName(h);
  // IPv6: let the URL parser write it the one canonical way. Not on the request path.
  try {
    return new URL(`http://[${h.replace(/^\[|\]$/g, "")}]/`).hostname === "[::1]";
  } catch {
    return false;
  }
}

export interface HostPort {
  /** Lowercase; IPv6 kept in brackets. */
  name: string;
  /** The explicit port, or undefined when the Host named none. */
  port: number | undefined;
}

/** `name`, `name:port`, `[v6]` or `[v6]:port`; undefined when it is none of these. */
export function splitHost(host: string): HostPort | undefined {
  let end: number;
  if (host.charCodeAt(0) === 91 /* [ */) {
    end = host.indexOf("]") + 1;
    if (end === 0) return undefined;
  } else {
    end = host.indexOf(":");
    if (end === -1) end = host.length;
  }
  if (end === 0) return undefined;
  const name = host.slice(0, end).toLowerCase();
  if (end === host.length) return { name, port: undefined };
  if (host.charCodeAt(end) !== 58 /* : */) return undefined;
  const port = parsePort(host, end + 1);
  return port === undefined ? undefined : { name, port };
}

function parsePort(s: string, from: number): number | undefined {
  if (from >= s.length || s.length - from > 5) return undefined;
  let n = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    n = n * 10 + (c - 48);
  }
  return n <= 65535 ? n : undefined;
}
