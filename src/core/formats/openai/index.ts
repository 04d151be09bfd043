// The OpenAI chat-completions wire codec (also spoken by DeepSeek, Groq,
// Mistral, xAI and most "OpenAI-compatible" vendors). The Responses API is a
// different format and is not handled here.
import type { Codec } from "../types.ts";
import { decodeError, encodeError } from "./error.ts";
import { decodeRequest } from "./request-decode.ts";
import { encodeRequest } from "./request-encode.ts";
import { decodeResponse, encodeResponse } from "./response.ts";
import { OpenAIStreamDecoder } from "./stream-decoder.ts";
import { OpenAIStreamEncoder } from "./stream-encoder.ts";

/** A usage or finish_reason that is not null (with include_usage every chunk says `"usage":null`). */
const NAMED_OUTCOME = /"(?:usage|finish_reason)"\s*:\s*[^\sn]/;

export const openaiCodec: Codec = {
  format: "openai",
  streamContentType: "text/event-stream",
  // Content deltas carry `"finish_reason":null` (and `"usage":null`); only the final chunks name a reason or usage.
  carriesOutcome: (raw) => raw.data === "[DONE]" || raw.data.includes('"error"') || NAMED_OUTCOME.test(raw.data),
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder: () => new OpenAIStreamDecoder(),
  streamEncoder: (opts) => new OpenAIStreamEncoder(opts),
  decodeError,
  encodeError,
};
