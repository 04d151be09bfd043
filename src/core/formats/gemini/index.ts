// The Google Gemini generateContent wire codec.
import type { Codec } from "../types.ts";
import { decodeError, encodeError } from "./errors.ts";
import { decodeRequest, encodeRequest } from "./request.ts";
import { decodeResponse, encodeResponse } from "./response.ts";
import { GeminiStreamDecoder } from "./stream-decoder.ts";
import { GeminiStreamEncoder } from "./stream-encoder.ts";

export const geminiCodec: Codec = {
  format: "gemini",
  streamContentType: "text/event-stream",
  modelInUrl: true,
  carriesOutcome: (raw) => raw.data.includes('"finishReason"') || raw.data.includes('"usageMetadata"') || raw.data.includes('"error"') || raw.data.includes('"promptFeedback"'),
  decodeRequest,
  encodeRequest, // the model is in the URL, so the options are not needed
  decodeResponse,
  encodeResponse,
  streamDecoder: () => new GeminiStreamDecoder(),
  streamEncoder: (opts) => new GeminiStreamEncoder(opts),
  decodeError,
  encodeError,
};
