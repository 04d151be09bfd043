// Responses errors. HTTP error bodies are OpenAI's `{error:{message,type,param,code}}`, so the
// chat codec's functions serve; a stream reports failures in-band (an `error` event, then
// `response.failed`) with a code but no HTTP status, which is inferred here.
import type { IRError } from "../../ir.ts";
import { decodeError, encodeError } from "../openai/error.ts";
import { isObject, stringOr, type Json } from "../openai/shape.ts";

export { decodeError, encodeError };

/** In-band error codes → the HTTP status OpenAI gives the same failure outside a stream. */
const STATUS_BY_CODE: Record<string, number> = {
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  server_error: 500,
  vector_store_timeout: 504,
  invalid_prompt: 400,
  invalid_image: 400,
  invalid_image_format: 400,
  invalid_base64_image: 400,
  invalid_image_url: 400,
  image_too_large: 400,
  image_too_small: 400,
  image_parse_error: 400,
  image_content_policy_violation: 400,
  invalid_image_mode: 400,
  image_file_too_large: 400,
  unsupported_image_media_type: 400,
  empty_image_file: 400,
  failed_to_download_image: 400,
  image_file_not_found: 400,
};

/**
 * An `error` event (`{code, message, param}`, or those nested under `error` as OpenAI also sends)
 * or a failed response's `error` (`{code, message}`).
 */
export function decodeStreamError(fields: Json): IRError {
  const e = isObject(fields.error) ? fields.error : fields;
  const code = stringOr(e.code, "") || stringOr(e.type, "");
  const status = STATUS_BY_CODE[code] ?? 500;
  return decodeError(status, { error: { message: stringOr(e.message, "vendor stream failed"), code: code || undefined } });
}

/** The `error` of a failed response object, and the members of the `error` stream event. */
export function responseError(err: IRError): { code: string; message: string } {
  return { code: err.vendorType ?? err.kind, message: err.message };
}
