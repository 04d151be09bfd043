// Every dashboard response goes out through here: the security headers, and
// ETags so the page's polling costs a 304 when nothing changed.
import type { Logger } from "../core/log.ts";
import { toErrorResponse } from "./app.ts";

export const SECURITY_HEADERS: Record<string, string> = {
  // No inline script or style anywhere: every asset is a separate embedded file.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

export function secure(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}

export const etagOf = (text: string): string => `"${Bun.hash(text).toString(36)}"`;

function matches(request: Request, etag: string): boolean {
  const given = request.headers.get("if-none-match");
  return given !== null && given.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/** A text body with its ETag, or 304 when the client already holds it. */
export function withEtag(request: Request, text: string, contentType: string, etag = etagOf(text)): Response {
  const headers = { etag, "cache-control": "no-cache", "content-type": contentType };
  if (matches(request, etag)) return secure(new Response(null, { status: 304, headers }));
  return secure(new Response(text, { headers }));
}

export const jsonWithEtag = (request: Request, value: unknown): Response =>
  withEtag(request, JSON.stringify(value), "application/json");

/** Runs a handler; errors become the spec's error body, with the security headers too. */
export async function guarded(request: Request, log: Logger, fn: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (e) {
    return secure(toErrorResponse(e, request, log));
  }
}
