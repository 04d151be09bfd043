// CORS is off unless origins are configured (server.corsOrigins); then only
// those origins get CORS headers, and preflights are answered here.

const ALLOW_HEADERS = "authorization, content-type, x-api-key, anthropic-version, anthropic-beta, x-svc-session, x-svc-metadata";
const EXPOSE_HEADERS = "x-svc-request-id, x-svc-routed-model, x-svc-provider, x-svc-strategy, x-svc-estimated-cost, retry-after";

const allowed = (origin: string | null, origins: string[]): origin is string =>
  origin !== null && (origins.includes(origin) || origins.includes("*"));

/** A preflight response, or undefined when the request is not a CORS preflight. */
export function preflight(request: Request, origins: string[]): Response | undefined {
  if (request.method !== "OPTIONS" || !request.headers.has("access-control-request-method")) return undefined;
  const origin = request.headers.get("origin");
  if (!allowed(origin, origins)) return new Response(null, { status: 403 });
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

export function addCorsHeaders(request: Request, headers: Headers, origins: string[]): void {
  const origin = request.headers.get("origin");
  if (!allowed(origin, origins)) return;
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  headers.append("vary", "origin");
}
