// The OpenAI Responses API wire codec (`POST /v1/responses`), one more format of the one IR.
//
// What it exports, for the routes and the stored responses built on it:
// - `responsesCodec` (also `codecFor("responses")`): the Codec. Its decodeRequest keeps
//   `previous_response_id` and `store` on the ChatRequest (`previousResponseId`, `store`) and
//   fetches nothing; encodeResponse gives the `response` object (id `resp_…`, output items, usage).
// - `responseId(id)`: the `resp_…` id an answer is given to the client under (encodeResponse's).
// - `decodeInput(input)`: a request's `input` (string or items) as IR system text and messages,
//   e.g. to rebuild a conversation from stored turns.
// - `encodeOutputItems(content, refused, tools)`: IR content as output items (`message`, `reasoning`,
//   `function_call`, `custom_tool_call` for the request's custom tools, opaque items verbatim).
// - `decodeStreamError(fields)`: an in-band stream error (`error` event or failed response) as IRError.
// Unmapped members go to `extra` under their wire path (`text.verbosity`, `reasoning.summary`;
// `tools` holds hosted tools only), and come back from encodeRequest in place. Custom (freeform)
// tools are IR functions taking their text as `input` (custom-tools.ts).
import type { Codec, RawStreamEvent } from "../types.ts";
import { decodeError, encodeError } from "./error.ts";
import { decodeRequest } from "./request-decode.ts";
import { encodeRequest } from "./request-encode.ts";
import { decodeResponse, encodeResponse } from "./response.ts";
import { ResponsesStreamDecoder } from "./stream-decoder.ts";
import { ResponsesStreamEncoder } from "./stream-encoder.ts";

export { decodeInput } from "./input-decode.ts";
export { encodeOutputItems } from "./items-encode.ts";
export { responseId } from "./response.ts";
export { decodeStreamError } from "./error.ts";

const TYPE_PREFIX = '{"type":"';

/**
 * Only deltas carry no outcome: the lifecycle events carry usage and status, output_item events
 * tell that a tool was called. The event name comes from the SSE `event:` field, or else from the
 * leading `type` member; when neither is readable the event counts as carrying one.
 */
function carriesOutcome(raw: RawStreamEvent): boolean {
  if (raw.event !== undefined) return !raw.event.endsWith(".delta");
  if (!raw.data.startsWith(TYPE_PREFIX)) return true;
  const end = raw.data.indexOf('"', TYPE_PREFIX.length);
  return end === -1 || !raw.data.startsWith(".delta", end - 6);
}

export const responsesCodec: Codec = {
  format: "responses",
  streamContentType: "text/event-stream",
  carriesOutcome,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder: () => new ResponsesStreamDecoder(),
  streamEncoder: (opts) => new ResponsesStreamEncoder(opts),
  decodeError,
  encodeError,
};
