// Composes Elysia surfaces into one fetch handler with the cross-cutting
// concerns every response needs: the browser guard before any route, a request
// id header, the error shapes of the spec, and one access-log line per request.
import { Elysia } from "elysia";
import type { Logger } from "../core/log.ts";
import type { AdminAccess } from "./admin-auth.ts";
import type { BrowserGuard, ListenerAddress } from "./browser-guard.ts";
import { addCorsHeaders, preflight } from "./cors.ts";
import { CoreError } from "../core/errors.ts";
import { geminiPath } from "../core/formats/gemini/path.ts";
import { newRequestId } from "../core/ids.ts";
import { type ErrorStyle, errorResponse } from "./http.ts";

export interface RequestInfo {
  id: string;
  /** performance.now() at arrival. */
  start: number;
  /** Date.now() at arrival: the time in the id, and the run's timestamp. */
  at: number;
  /** The listener it arrived on, for the admin check (admin-auth.ts). */
  access?: AdminAccess;
}

const info = new WeakMap<Request, RequestInfo>();

/** The id and start time Relay gave this request. */
export function requestInfo(request: Request): RequestInfo {
  let i = info.get(request);
  if (!i) {
    const at = Date.now();
    i = { id: newRequestId(at), start: performance.now(), at };
    info.set(request, i);
  }
  return i;
}

/** `relay cloud`'s public price list (spec §2.9): a hosted route, so the hosted error shape, not a model list's. */
const PUBLIC_MODELS_PATH = "/models.json";

/** The error shape of a path: the client's own wire format on the model routes (Gemini's model methods before the `/models` rule). */
export const errorStyle = (path: string): ErrorStyle =>
  path.startsWith("/v1/messages")
    ? "anthropic"
    : geminiPath(path)
      ? "gemini"
      : path.includes("/chat/completions") || (path.includes("/models") && path !== PUBLIC_MODELS_PATH)
        ? "openai"
        : "spec";

export const NOT_FOUND_MESSAGE =
  "Unknown route. Core endpoints: POST /v1/messages, POST /v1/chat/completions, GET /v1/models";

export interface SurfaceOptions {
  log: Logger;
  /** Judges Host, Origin and content type before any route (browser-guard.ts). */
  guard: BrowserGuard;
  /** Where the app listens when a request is handed to it without its listener (in-process callers). */
  listener: () => ListenerAddress;
  /** This install's own admin token, for when none is configured (read once, on first use). */
  installToken: () => string;
  /** Origins allowed by CORS (read per request so config changes apply); empty = CORS off. */
  corsOrigins?: () => string[];
  /** Last chance to serve a path no route matched (the proxy's substring routes). */
  fallback?: (request: Request, path: string) => Response | Promise<Response> | undefined;
  /**
   * Tried before the router: the few routes that carry nearly all traffic are
   * answered without the framework's per-request work. They stay registered as
   * routes too, so the API docs describe them. Their answers must carry
   * x-svc-request-id themselves. Skipped while CORS is on (its headers are
   * added to every answer anyway).
   */
  fastPath?: (request: Request, path: string) => Promise<Response> | undefined;
}

/** The path of a request URL, without building a URL object (relative when the Host was unusable). */
export function pathOf(url: string): string {
  const start = url.charCodeAt(0) === 47 ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}

/** Map anything thrown to a response; unexpected errors are logged, never shown. */
export function toErrorResponse(e: unknown, request: Request, log: Logger): Response {
  const { id } = requestInfo(request);
  const path = new URL(request.url).pathname;
  if (e instanceof CoreError) return errorResponse(e, id, errorStyle(path));
  log.error("unhandled error", { requestId: id, path, error: e });
  return errorResponse(new CoreError(500, "internal_error", "Internal server error"), id, errorStyle(path));
}

export function createApp(surfaces: Elysia<any, any, any, any, any, any, any>[], opts: SurfaceOptions) {
  const app = new Elysia({ aot: true }).onError(({ code, error, request }) => {
    if (code === "NOT_FOUND") {
      const path = new URL(request.url).pathname;
      const served = opts.fallback?.(request, path);
      if (served) return served;
      return errorResponse(new CoreError(404, "not_found", NOT_FOUND_MESSAGE), requestInfo(request).id, "spec");
    }
    if (code === "PARSE") return toErrorResponse(new CoreError(400, "invalid_request", "Invalid JSON"), request, opts.log);
    if (code === "VALIDATION") {
      const v = error as { valueError?: { path?: string; message?: string; value?: unknown } };
      const parameter = (v.valueError?.path ?? "").replace(/^\//, "").replace(/\//g, ".") || "body";
      return toErrorResponse(
        new CoreError(400, "invalid_request", `Invalid ${parameter}: ${v.valueError?.message ?? "invalid value"}`, {
          details: { parameter, provided: v.valueError?.value, expected: v.valueError?.message ?? "valid value" },
        }),
        request,
        opts.log,
      );
    }
    return toErrorResponse(error, request, opts.log);
  });
  for (const s of surfaces) app.use(s);

  const handle = app.handle.bind(app);
  let access: AdminAccess = { port: -1, installToken: opts.installToken };
  return async function fetch(request: Request, listener = opts.listener()): Promise<Response> {
    const ri = requestInfo(request);
    if (access.port !== listener.port) access = { port: listener.port, installToken: opts.installToken };
    ri.access = access;
    const url = request.url;
    const path = pathOf(url);
    const origins = opts.corsOrigins?.() ?? [];
    let res: Response;
    // Fast-path answers carry the request id already; setting it again would cost a headers object.
    let hasId = false;
    try {
      const refused = opts.guard(request, url, listener);
      if (refused) throw refused;
      const fast = origins.length ? undefined : opts.fastPath?.(request, path);
      hasId = fast !== undefined;
      res = (origins.length && preflight(request, origins)) || (await (fast ?? handle(request)));
    } catch (e) {
      // Not toErrorResponse: a refused request's URL may have no host to parse.
      res = e instanceof CoreError ? errorResponse(e, ri.id, errorStyle(path)) : toErrorResponse(e, request, opts.log);
      hasId = true;
    }
    if (!hasId) {
      try {
        res.headers.set("x-svc-request-id", ri.id);
      } catch {
        res = new Response(res.body, res);
        res.headers.set("x-svc-request-id", ri.id);
      }
    }
    if (origins.length) addCorsHeaders(request, res.headers, origins);
    if (opts.log.enabled("info")) {
      opts.log.access({ requestId: ri.id, method: request.method, path, status: res.status, ms: Math.round((performance.now() - ri.start) * 100) / 100 });
    }
    return res;
  };
}
