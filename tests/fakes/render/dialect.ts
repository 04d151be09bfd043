import type { Reply, ReceivedRequest } from "../types.ts";

/** What a chat call asked for, as far as rendering is concerned. */
export interface ChatCall {
  model: string;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean;
  /** Gemini: `alt=sse` (SSE frames) rather than a streamed JSON array. */
  sse: boolean;
  /** OpenAI: a Responses API call (POST /responses) rather than chat completions. */
  responses?: boolean;
}

export interface StaticAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** Either a chat call to answer with a scripted Reply, or a fixed answer (listing, auth error, 404…). */
export type Route = { kind: "chat"; call: ChatCall } | { kind: "static"; answer: StaticAnswer };

/** Everything vendor-specific about a fake: routing, bodies, stream payloads and their framing. */
export interface Dialect {
  route(req: ReceivedRequest): Route;
  /** Whole non-streaming success body. */
  body(reply: Reply, call: ChatCall): string;
  /** Stream payloads (unframed, one per event), in order. */
  events(reply: Reply, call: ChatCall): string[];
  /** Wire pieces for the payloads, including any stream terminator. */
  frame(payloads: string[], call: ChatCall): string[];
  streamContentType(call: ChatCall): string;
  /** Error body in the vendor's shape. */
  error(status: number, type: string | undefined, message: string | undefined): string;
  /** One framed piece that a parser of this stream format must reject. */
  garbage(call: ChatCall): string;
}
