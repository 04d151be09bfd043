// Google API error bodies `{error:{code,message,status,details}}` <-> IRError.
import type { CoreError } from "../../errors.ts";
import type { ErrorKind, IRError } from "../../ir.ts";
import { errorKindForStatus, retryAfterHeader } from "../shared/error-kind.ts";
import { isRecord, optNumber, optString, records, type JsonObject } from "../shared/guards.ts";

const KIND_OF_STATUS: Record<string, ErrorKind> = {
  INVALID_ARGUMENT: "invalid_request",
  FAILED_PRECONDITION: "invalid_request",
  OUT_OF_RANGE: "invalid_request",
  UNAUTHENTICATED: "authentication",
  PERMISSION_DENIED: "permission",
  NOT_FOUND: "not_found",
  RESOURCE_EXHAUSTED: "rate_limit",
  UNAVAILABLE: "overloaded",
  DEADLINE_EXCEEDED: "timeout",
  INTERNAL: "api_error",
};

const STATUS_OF_KIND: Record<ErrorKind, string> = {
  invalid_request: "INVALID_ARGUMENT",
  authentication: "UNAUTHENTICATED",
  permission: "PERMISSION_DENIED",
  not_found: "NOT_FOUND",
  request_too_large: "INVALID_ARGUMENT",
  rate_limit: "RESOURCE_EXHAUSTED",
  overloaded: "UNAVAILABLE",
  timeout: "DEADLINE_EXCEEDED",
  api_error: "INTERNAL",
};

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** Google's canonical status of an HTTP status (google.rpc.Code's mapping). */
const STATUS_OF_HTTP: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export function decodeError(status: number, body: unknown, headers?: Headers): IRError {
  // Streaming endpoints sometimes wrap the error object in an array.
  const outer = Array.isArray(body) ? body[0] : body;
  const err: JsonObject = isRecord(outer) && isRecord(outer.error) ? outer.error : {};
  const details = records(err.details);
  const statusName = optString(err.status);
  // Gemini answers a bad API key with 400 INVALID_ARGUMENT; the detail's reason tells.
  const badKey = details.some((d) => d.reason === "API_KEY_INVALID");
  const httpStatus = status > 0 ? status : (optNumber(err.code) ?? 500);
  const retryAfter = retryDelay(details) ?? retryAfterHeader(headers);
  return {
    kind: badKey ? "authentication" : ((statusName ? KIND_OF_STATUS[statusName] : undefined) ?? errorKindForStatus(httpStatus)),
    status: httpStatus,
    message: optString(err.message) ?? (typeof body === "string" && body ? body : `Gemini returned HTTP ${httpStatus}`),
    ...(statusName && { vendorType: statusName }),
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

/** RetryInfo's `retryDelay` is a protobuf Duration such as "34.4s"; rounded up to whole seconds. */
function retryDelay(details: JsonObject[]): number | undefined {
  const delay = details.find((d) => d["@type"] === RETRY_INFO)?.retryDelay;
  const m = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Math.ceil(Number(m[1])) : undefined;
}

export function encodeError(err: IRError): JsonObject {
  return {
    error: {
      code: err.status,
      message: err.message,
      status: STATUS_OF_KIND[err.kind],
      ...(err.retryAfter !== undefined && {
        details: [{ "@type": RETRY_INFO, retryDelay: `${err.retryAfter}s` }],
      }),
    },
  };
}

/**
 * Relay's own refusal in Google's shape, for clients of the Gemini routes: the HTTP status and its
 * canonical name (Google's own name when the error came from Google), Relay's code as an ErrorInfo
 * reason, and what was wrong with which parameter as its metadata.
 */
export function encodeRelayError(err: CoreError): JsonObject {
  const { vendorType, details } = err.extra;
  const status = vendorType && KIND_OF_STATUS[vendorType] ? vendorType : (STATUS_OF_HTTP[err.status] ?? (err.status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"));
  const metadata = details && { parameter: details.parameter, expected: details.expected };
  return {
    error: {
      code: err.status,
      message: err.message,
      status,
      details: [{ "@type": ERROR_INFO, reason: err.code, domain: "relay", ...(metadata && { metadata }) }],
    },
  };
}
