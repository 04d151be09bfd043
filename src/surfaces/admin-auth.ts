// Administrative routes (/control/*, /v1/config, /dashboard/config) require
// `Authorization: Bearer <admin token>` whenever the server listens beyond
// loopback. The comparison is constant-time so the token cannot be guessed
// byte by byte from response timings.
import { timingSafeEqual } from "node:crypto";
import { HttpError } from "./http.ts";

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || h.startsWith("127.") || h === "::ffff:127.0.0.1";
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

/** Throws 401 unless the request may use admin routes. */
export function requireAdmin(request: Request, opts: { host: string; adminToken?: string }): void {
  if (!opts.adminToken) {
    if (isLoopback(opts.host)) return requireLocalOrigin(request);
    throw new HttpError(401, "unauthorized", "Admin token required");
  }
  const auth = request.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  if (!m || !tokenMatches(m[1]!.trim(), opts.adminToken)) {
    // Off loopback, or a token was configured: callers must present it.
    if (isLoopback(opts.host) && !auth) return requireLocalOrigin(request);
    throw new HttpError(401, "unauthorized", "Missing or invalid admin token");
  }
}

/** On loopback without a token, refuse browser requests from other origins (CSRF). */
function requireLocalOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (!origin) return;
  try {
    if (isLoopback(new URL(origin).hostname)) return;
  } catch {
    // fall through
  }
  throw new HttpError(403, "forbidden", "Cross-origin admin request refused");
}

/** Elysia beforeHandle hook guarding a surface's routes with the current config. */
export function adminGuard(config: () => { server: { host: string }; adminToken?: string }) {
  return ({ request }: { request: Request }) => {
    const c = config();
    requireAdmin(request, { host: c.server.host, adminToken: c.adminToken });
  };
}
