// The Ollama /api/chat wire codec (NDJSON streaming).
import type { Codec } from "../types.ts";
import { decodeError, encodeError } from "./errors.ts";
import { decodeRequest, encodeRequest } from "./request.ts";
import { decodeResponse, encodeResponse } from "./response.ts";
import { OllamaStreamDecoder } from "./stream-decoder.ts";
import { OllamaStreamEncoder } from "./stream-encoder.ts";

const DONE = /"done"\s*:\s*true/;

export const ollamaCodec: Codec = {
  format: "ollama",
  streamContentType: "application/x-ndjson",
  carriesOutcome: (raw) => DONE.test(raw.data) || raw.data.includes('"error"'),
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder: () => new OllamaStreamDecoder(),
  streamEncoder: (opts) => new OllamaStreamEncoder(opts),
  decodeError,
  encodeError,
};
