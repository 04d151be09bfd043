// Administrative routes (/control/*, /v1/config, /v1/telemetry/*,
// /dashboard/config, /dashboard/api/*) always require the admin token, on
// loopback too: the configured one (adminToken / RELAY_ADMIN_TOKEN), else this
// install's own ($RELAY_HOME/admin-token, see install-token.ts). It arrives as
// `Authorization: Bearer <token>` (CLI, scripts) or as the dashboard's session
// cookie, which is named per listener and holds a value derived from the token
// and the port, so the proxy's dashboard and the cloud console never share one.
// Comparisons are constant-time so a token cannot be guessed from timings.
import { createHmac, timingSafeEqual } from "node:crypto";
import { requestInfo } from "./app.ts";
import { hostEnd } from "./browser-guard.ts";
import { CoreError } from "../core/errors.ts";

/** What the admin check knows about the listener a request arrived on (set by app.ts). */
export interface AdminAccess {
  readonly port: number;
  /** This install's own token, created on first use. */
  installToken(): string;
}

export function tokenMatches(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  // Compare equal-length buffers either way so length differences take the same time.
  const len = Math.max(a.length, b.length);
  const pa = new Uint8Array(len);
  const pb = new Uint8Array(len);
  pa.set(a);
  pb.set(b);
  return timingSafeEqual(pa, pb) && a.length === b.length;
}

export const sessionCookieName = (port: number): string => `relay_admin_${port}`;

/** The cookie's value: the token never sits in the browser, and a cookie of one port is worthless on another. */
export const sessionValue = (token: string, port: number): string =>
  createHmac("sha256", token).update(`relay dashboard session ${port}`).digest("base64url");

/** `Set-Cookie` for a signed-in dashboard on this listener: a session cookie, never sent cross-site, unreadable by script. */
export const sessionCookie = (token: string, port: number): string =>
  `${sessionCookieName(port)}=${sessionValue(token, port)}; Path=/; HttpOnly; SameSite=Strict`;

/** The value of the request's cookie `name`, if it sent one. */
export function cookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The cookie counts only for the listener's own pages: a request that carries
 * another Origin (one of server.corsOrigins, say) must bring the bearer token.
 */
function sessionMatches(request: Request, token: string, port: number): boolean {
  const given = cookie(request, sessionCookieName(port));
  if (given === undefined) return false;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const end = hostEnd(request.url);
    if (end === -1 || origin !== request.url.slice(0, end)) return false;
  }
  return tokenMatches(given, sessionValue(token, port));
}

/** The token in effect: the configured one, else this install's own; undefined only outside a listener. */
export function adminTokenFor(request: Request, configured: string | undefined): string | undefined {
  return configured ?? requestInfo(request).access?.installToken();
}

const HOW =
  "send Authorization: Bearer <token> (adminToken / RELAY_ADMIN_TOKEN, else the file $RELAY_HOME/admin-token); in a browser, open the link `relay dashboard` prints";

/** Throws 401 unless the request carries the admin token or this listener's session cookie. */
export function requireAdmin(request: Request, configured: string | undefined): void {
  const token = adminTokenFor(request, configured);
  if (token === undefined) throw new CoreError(401, "unauthorized", `Admin token required: ${HOW}`);
  const auth = request.headers.get("authorization");
  if (auth !== null) {
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (m && tokenMatches(m[1]!.trim(), token)) return;
    throw new CoreError(401, "unauthorized", "Invalid admin token");
  }
  const access = requestInfo(request).access;
  if (access && sessionMatches(request, token, access.port)) return;
  throw new CoreError(401, "unauthorized", `Admin token required: ${HOW}`);
}

/** Elysia beforeHandle hook guarding a surface's routes with the current config. */
export function adminGuard(config: () => { adminToken?: string }) {
  return ({ request }: { request: Request }) => requireAdmin(request, config().adminToken);
}
