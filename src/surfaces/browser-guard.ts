// Every request is judged here before any route sees it, by parsed facts,
// because a web page the operator merely visits can make the browser send
// requests to Relay (SECURITY.md, "The browser as an attacker"):
//   Host     a loopback listener answers only to loopback names with its own
//            port, or to names in server.allowedHosts (a DNS-rebound page sends
//            its own name): 421 otherwise;
//   Origin   when present, this listener's own origin or one of
//            server.corsOrigins: 403 otherwise;
//   POST     a JSON content type, which a browser can only send after a CORS
//            preflight (refused unless the origin is listed): 415 otherwise.
// It runs on every request of the hot path: no URL object, no regex on the
// usual values, a memo of the last accepted Host. Refusals carry the
// dashboard's security headers, whichever route they stop.
import { CoreError } from "../core/errors.ts";
import { type HostPort, isLoopback, isLoopbackName, splitHost } from "../core/net/loopback.ts";
import { SECURITY_HEADERS } from "./respond.ts";

export interface GuardSettings {
  corsOrigins: string[];
  allowedHosts: string[];
}

/** The socket a request arrived on (runtime/serve.ts), or what the config says when called in-process. */
export interface ListenerAddress {
  readonly hostname: string;
  readonly port: number;
}

export type BrowserGuard = (request: Request, url: string, listener: ListenerAddress) => CoreError | undefined;

/** Where the host of an absolute `http(s)://host/...` URL ends, or -1 when it has none (Bun leaves a bad Host out of request.url). */
export function hostEnd(url: string): number {
  const start = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  if (start === -1) return -1;
  const slash = url.indexOf("/", start);
  const end = slash === -1 ? url.length : slash;
  return end > start ? end : -1;
}

const JSON_SUFFIX = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/;

/** application/json or any type/subtype+json, with or without parameters. */
export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === "application/json") return true;
  const semi = contentType.indexOf(";");
  const essence = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return essence === "application/json" || JSON_SUFFIX.test(essence);
}

function allowedHost(allowed: HostPort[], h: HostPort): boolean {
  return allowed.some((a) => a.name === h.name && (a.port === undefined || a.port === (h.port ?? 80)));
}

function parseAllowed(entries: string[]): HostPort[] {
  return entries.map((e) => splitHost(e.trim())).filter((h): h is HostPort => h !== undefined);
}

const misdirected = (host: string, port: number) =>
  new CoreError(
    421,
    "misdirected_request",
    `Host "${host.slice(0, 100)}" is not an address of this Relay, which answers to 127.0.0.1:${port}, localhost:${port} and [::1]:${port}; to reach it by another name, add that name to server.allowedHosts`,
    { vendorType: "invalid_request_error", headers: SECURITY_HEADERS },
  );

const foreignOrigin = (origin: string, own: string) =>
  new CoreError(
    403,
    "forbidden_origin",
    `Requests from web pages of ${origin.slice(0, 100)} are refused: only Relay's own pages (${own}) may call it from a browser; list other origins in server.corsOrigins`,
    { headers: SECURITY_HEADERS },
  );

const notJson = (contentType: string | null) =>
  new CoreError(415, "unsupported_media_type", `POST bodies must be JSON: send Content-Type: application/json (got ${contentType === null ? "none" : JSON.stringify(contentType.slice(0, 100))})`, {
    vendorType: "invalid_request_error",
    headers: SECURITY_HEADERS,
  });

/**
 * A guard for one app. `jsonPosts` demands JSON on every POST (the proxy and
 * cloud listeners: all their POST routes take JSON).
 */
export function browserGuard(settings: () => GuardSettings, jsonPosts: boolean): BrowserGuard {
  let allowedFrom: string[] | undefined;
  let allowed: HostPort[] = [];
  let lastListener: ListenerAddress | undefined;
  let loopbackListener = true;
  // The last Host accepted, for the settings and listener it was accepted under.
  let accepted = "";

  function hostRefused(host: string, listener: ListenerAddress): boolean {
    if (host === accepted) return false;
    const h = splitHost(host);
    const ok = h !== undefined && ((isLoopbackName(h.name) && (h.port ?? 80) === listener.port) || allowedHost(allowed, h));
    // Off loopback, the Host is checked only when allowedHosts names the ones to accept.
    if (!ok && (loopbackListener || allowed.length > 0)) return true;
    accepted = host;
    return false;
  }

  return (request, url, listener) => {
    const s = settings();
    if (s.allowedHosts !== allowedFrom || listener !== lastListener) {
      allowedFrom = s.allowedHosts;
      allowed = parseAllowed(s.allowedHosts);
      lastListener = listener;
      loopbackListener = isLoopback(listener.hostname);
      accepted = "";
    }
    const end = hostEnd(url);
    if (end === -1) return misdirected(request.headers.get("host") ?? "", listener.port);
    const host = url.slice(url.charCodeAt(4) === 58 ? 7 : 8, end);
    if (hostRefused(host, listener)) return misdirected(host, listener.port);

    const origin = request.headers.get("origin");
    if (origin !== null) {
      const own = url.slice(0, end);
      if (origin !== own && !s.corsOrigins.includes(origin) && !s.corsOrigins.includes("*")) return foreignOrigin(origin, own);
    }
    if (jsonPosts && request.method === "POST") {
      const type = request.headers.get("content-type");
      if (!isJsonType(type)) return notJson(type);
    }
    return undefined;
  };
}
