import type {
  ChatRequest,
  ChatResponse,
  IRError,
  StreamEvent,
  ToolDefinition,
  WireFormat,
} from "../ir.ts";

/** One framed unit read from a vendor stream: an SSE event or an NDJSON line. */
export interface RawStreamEvent {
  /** SSE `event:` field; undefined for NDJSON and for SSE without one. */
  event?: string;
  data: string;
}

export interface EncodedRequest {
  body: Record<string, unknown>;
  /** Wire names of parameters the vendor cannot honour, dropped safely. */
  dropped: string[];
}

export interface EncodeRequestOptions {
  /** The vendor's model id (already resolved). */
  model: string;
  /** Default max output tokens for formats that require one (Anthropic). */
  defaultMaxTokens?: number;
}

export interface StreamDecoder {
  /** Feed one raw vendor event; returns the IR events it completes. */
  push(raw: RawStreamEvent): StreamEvent[];
  /** The vendor stream ended; returns any closing events not yet emitted. */
  end(): StreamEvent[];
}

export interface StreamEncoder {
  /** Turn one IR event into the bytes (as text) the client must receive; may be "". */
  encode(ev: StreamEvent): string;
  /** Closing frames (e.g. OpenAI's `data: [DONE]`) after the last event. */
  end(): string;
}

export interface ResponseEncoderOptions {
  /** Model name to report to the client. */
  model: string;
  /** The request's tools: a call of a Responses custom tool is answered as one. */
  tools?: readonly ToolDefinition[];
}

export interface StreamEncoderOptions extends ResponseEncoderOptions {
  /** OpenAI `stream_options.include_usage`. */
  includeUsage?: boolean;
  id?: string;
}

/**
 * A wire codec: decodes a format to the IR and encodes the IR to it, for
 * requests, responses, stream events and errors. Codecs are pure: no I/O.
 * Decoders throw `CodecError` (a 400 for the client) on input they cannot read.
 */
export interface Codec {
  readonly format: WireFormat;
  /** Content type of this format's stream (`text/event-stream` or `application/x-ndjson`). */
  readonly streamContentType: string;
  /** The model is named in the request's URL, not its body (Gemini): a passthrough body serves any model as it is. */
  readonly modelInUrl?: boolean;
  decodeRequest(body: unknown): ChatRequest;
  encodeRequest(req: ChatRequest, opts: EncodeRequestOptions): EncodedRequest;
  decodeResponse(body: unknown): ChatResponse;
  encodeResponse(res: ChatResponse, opts: ResponseEncoderOptions): Record<string, unknown>;
  streamDecoder(): StreamDecoder;
  streamEncoder(opts: StreamEncoderOptions): StreamEncoder;
  decodeError(status: number, body: unknown, headers?: Headers): IRError;
  encodeError(err: IRError): Record<string, unknown>;
  /**
   * Cheap test on a raw stream event: may it carry usage, a stop reason or an
   * error? Same-format streams are piped unchanged, and only these events need
   * decoding for the run log; false must never be said of such an event.
   */
  carriesOutcome(raw: RawStreamEvent): boolean;
}

export class CodecError extends Error {
  constructor(
    message: string,
    /** Offending parameter path, for the spec's `details.parameter`. */
    readonly parameter?: string,
    readonly expected?: string,
  ) {
    super(message);
    this.name = "CodecError";
  }
}
