// Google API error bodies `{error:{code,message,status,details}}` <-> IRError.
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
