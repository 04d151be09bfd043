// The Anthropic messages wire codec (`POST /v1/messages`).
import type { Codec } from "../types.ts";
import { decodeError, encodeError } from "./error.ts";
import { decodeRequest } from "./request-decode.ts";
import { encodeRequest } from "./request-encode.ts";
import { decodeResponse, encodeResponse } from "./response.ts";
import { AnthropicStreamDecoder } from "./stream-decoder.ts";
import { AnthropicStreamEncoder } from "./stream-encoder.ts";

export const anthropicCodec: Codec = {
  format: "anthropic",
  streamContentType: "text/event-stream",
  // Usage and the stop reason travel in message_start/message_delta; errors in `error`.
  carriesOutcome: (raw) => raw.event !== undefined && !raw.event.startsWith("content_block") && raw.event !== "ping",
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder: () => new AnthropicStreamDecoder(),
  streamEncoder: (opts) => new AnthropicStreamEncoder(opts),
  decodeError,
  encodeError,
};
