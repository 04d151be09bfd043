// Anthropic error bodies: `{type:"error", error:{type, message}}`, over HTTP
// and as the `error` stream event.
import type { ErrorKind, IRError } from "../../ir.ts";
import { type Json, isRecord } from "./read.ts";

const KIND_BY_TYPE: Record<string, ErrorKind> = {
  invalid_request_error: "invalid_request",
  authentication_error: "authentication",
  billing_error: "permission",
  permission_error: "permission",
  not_found_error: "not_found",
  request_too_large: "request_too_large",
  rate_limit_error: "rate_limit",
  api_error: "api_error",
  timeout_error: "timeout",
  overloaded_error: "overloaded",
};

const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "request_too_large",
  rate_limit: "rate_limit_error",
  overloaded: "overloaded_error",
  timeout: "timeout_error",
  api_error: "api_error",
};

/** Anthropic's own status per kind: overloaded is the non-standard 529. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  overloaded: 529,
  timeout: 504,
  api_error: 500,
};

function kindFromStatus(status: number): ErrorKind {
  if (status === 401) return "authentication";
  if (status === 402 || status === 403) return "permission";
  if (status === 404) return "not_found";
  if (status === 408 || status === 504) return "timeout";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 400 && status < 500) return "invalid_request";
  return "api_error";
}

function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

const MAX_RAW_MESSAGE = 500;

export function decodeError(status: number, body: unknown, headers?: Headers): IRError {
  const parsed = parseBody(body);
  const err = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  const vendorType = typeof err?.type === "string" ? err.type : undefined;
  const rawText = typeof parsed === "string" && parsed.trim() ? parsed.slice(0, MAX_RAW_MESSAGE) : undefined;
  const message = typeof err?.message === "string" ? err.message : (rawText ?? `HTTP ${status}`);
  const retryAfter = parseRetryAfter(headers?.get("retry-after"));
  return {
    kind: (vendorType && KIND_BY_TYPE[vendorType]) || kindFromStatus(status),
    status,
    message,
    ...(vendorType === undefined ? {} : { vendorType }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

/** A stream `error` event carries no HTTP status; Anthropic's status for its type stands in. */
export function decodeStreamError(data: unknown): IRError {
  const err = isRecord(data) && isRecord(data.error) ? data.error : undefined;
  const kind = (typeof err?.type === "string" && KIND_BY_TYPE[err.type]) || "api_error";
  return decodeError(STATUS_BY_KIND[kind], data);
}

export function encodeError(err: IRError): Json {
  // Keep the vendor's exact type (e.g. billing_error) only when it is an Anthropic
  // type of the same kind; OpenAI reuses some names with other meanings.
  const keepVendorType = err.vendorType !== undefined && KIND_BY_TYPE[err.vendorType] === err.kind;
  const type = keepVendorType ? err.vendorType : TYPE_BY_KIND[err.kind];
  return { type: "error", error: { type, message: err.message } };
}
