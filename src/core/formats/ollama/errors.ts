// Ollama errors are `{"error": "<message>"}` with a meaningful HTTP status.
import type { IRError } from "../../ir.ts";
import { errorKindForStatus, retryAfterHeader } from "../shared/error-kind.ts";
import { isRecord, optString, type JsonObject } from "../shared/guards.ts";

export function decodeError(status: number, body: unknown, headers?: Headers): IRError {
  const message = isRecord(body) ? optString(body.error) : typeof body === "string" ? body : undefined;
  const retryAfter = retryAfterHeader(headers);
  return {
    kind: errorKindForStatus(status),
    status,
    message: message || `Ollama returned HTTP ${status}`,
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

export const encodeError = (err: IRError): JsonObject => ({ error: err.message });
