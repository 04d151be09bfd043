// OpenAI error bodies `{error:{message,type,param,code}}` ↔ IRError.
import type { ErrorKind, IRError } from "../../ir.ts";
import { isObject, type Json } from "./shape.ts";

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: "invalid_request",
  401: "authentication",
  403: "permission",
  404: "not_found",
  408: "timeout",
  413: "request_too_large",
  422: "invalid_request", // Mistral and other FastAPI-based vendors reject bad parameters with 422
  429: "rate_limit",
  503: "overloaded",
  504: "timeout",
  529: "overloaded",
};

/** OpenAI's `error.type` vocabulary, used when the error did not come from an OpenAI-style vendor. */
const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "invalid_request_error",
  rate_limit: "rate_limit_error",
  overloaded: "server_error",
  timeout: "timeout_error",
  api_error: "server_error",
};

const MAX_MESSAGE = 500;

export function decodeError(status: number, body: unknown, headers?: Headers): IRError {
  const parsed = typeof body === "string" ? parseJson(body) : body;
  // OpenAI nests under `error`; Mistral and some proxies put the fields at the top level.
  const fields: Json = isObject(parsed) ? (isObject(parsed.error) ? parsed.error : parsed) : {};
  const message =
    (typeof fields.message === "string" && fields.message) ||
    (isObject(parsed) && typeof parsed.error === "string" && parsed.error) ||
    (typeof body === "string" && body.trim().slice(0, MAX_MESSAGE)) ||
    `HTTP ${status}`;
  const vendorType = [fields.type, fields.code].find((v): v is string => typeof v === "string" && v !== "");
  const err: IRError = {
    kind: KIND_BY_STATUS[status] ?? "api_error",
    status: status >= 400 && status <= 599 ? status : 502,
    message,
  };
  if (vendorType) err.vendorType = vendorType;
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) err.retryAfter = retryAfter;
  return err;
}

/** An `{"error":…}` chunk inside a stream has no HTTP status; a numeric `code` may stand in for it. */
export function decodeStreamError(body: Json): IRError {
  const code = isObject(body.error) ? body.error.code : undefined;
  const status = typeof code === "number" && code >= 400 && code <= 599 ? code : 500;
  return decodeError(status, body);
}

export function encodeError(err: IRError): Json {
  return {
    error: { message: err.message, type: err.vendorType ?? TYPE_BY_KIND[err.kind], param: null, code: err.kind },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `retry-after-ms` (OpenAI) is the more precise; `retry-after` is seconds or an HTTP date. */
function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms) / 1000);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
