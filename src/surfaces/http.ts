// HTTP plumbing shared by every surface: request ids and the error bodies that render the core's
// HttpError (src/core/errors.ts). Proxy errors are answered in the client's own wire format so
// the official SDKs parse them; other routes use the spec's shape (§2.6):
// { error: { code, message, details? }, request_id }.

import type { HttpError } from "../core/errors.ts";

export type ErrorStyle = "anthropic" | "openai" | "spec";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolAt = 0;

/** `n` random base-36 characters, from a pool refilled 4 KB at a time (one getRandomValues call per ~200 ids). */
function randomChars(n: number): string {
  if (poolAt + n > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolAt = 0;
  }
  let s = "";
  for (let i = 0; i < n; i++) s += ALPHABET[pool[poolAt++]! % 36];
  return s;
}

/**
 * `req_` + 9 base-36 characters of `now` (ms) + 3 of a counter within that millisecond + 11 random
 * ones (57 bits). Time first keeps the run log's primary-key index append-only: random keys scatter
 * every insert across the whole b-tree (measured: 2-3x the cost per row). The counter keeps one
 * process's ids in arrival order within a millisecond, so the run log's newest-first order (its time,
 * then its id) is the order requests arrived.
 */
export function newRequestId(now = Date.now()): string {
  if (now !== idMs) {
    idMs = now;
    idPrefix = `req_${now.toString(36).padStart(9, "0")}`;
    idSeq = 0;
  }
  return idPrefix + (idSeq++).toString(36).padStart(3, "0") + randomChars(11);
}

let idMs = 0;
let idPrefix = "";
let idSeq = 0;

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  529: "overloaded_error",
};

function openaiType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function errorBody(err: HttpError, requestId: string, style: ErrorStyle): Record<string, unknown> {
  const { details, suggestions, vendorType } = err.extra;
  if (style === "anthropic") {
    return {
      type: "error",
      error: { type: vendorType ?? ANTHROPIC_TYPES[err.status] ?? "api_error", message: err.message, code: err.code, ...(details ? { details } : {}) },
      ...(suggestions ? { suggestions } : {}),
      request_id: requestId,
    };
  }
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (style === "openai") {
    error.type = vendorType ?? openaiType(err.status);
    error.param = details?.parameter ?? null;
  }
  if (details) error.details = details;
  return { error, ...(suggestions ? { suggestions } : {}), request_id: requestId };
}

export function errorResponse(err: HttpError, requestId: string, style: ErrorStyle): Response {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-svc-request-id": requestId,
    ...err.extra.headers,
  };
  if (err.extra.retryAfter !== undefined) headers["retry-after"] = String(Math.max(0, Math.ceil(err.extra.retryAfter)));
  return new Response(JSON.stringify(errorBody(err, requestId, style)), { status: err.status, headers });
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
