// What a caller gives primeStream (src/core/router/stream-relay.ts) and gets
// back from it, and the errors with which Relay itself ends a stream.
import type { Codec } from "../formats/types.ts";
import type { IRError, StopReason, StreamEvent, ToolDefinition, Usage } from "../ir.ts";
import type { StreamLimits } from "./bounded-parser.ts";

export interface StreamOutcome {
  outcome: "ok" | "error" | "cancelled";
  usage: Usage;
  stopReason?: StopReason;
  /** Model the vendor reported. */
  model?: string;
  error?: string;
  /** Ended by one of Relay's own limits (a cap, the duration limit, a guard): not the vendor's failure. */
  limited?: boolean;
}

export interface StreamRelayOptions {
  body: ReadableStream<Uint8Array>;
  vendor: Codec;
  client: Codec;
  /** Pipe vendor bytes unchanged instead of re-encoding. */
  passthrough: boolean;
  clientModel: string;
  includeUsage?: boolean;
  /** The request's tools, for the client's encoder (see ResponseEncoderOptions). */
  tools?: readonly ToolDefinition[];
  idleTimeoutMs: number;
  /** The caps (see bounded-parser.ts); the pipeline passes `config.server`. */
  limits: StreamLimits;
  /** Removes secrets from a vendor's error text before it is relayed or logged (src/core/secrets). */
  scrubber?: { scrub(text: string): string };
  /**
   * Called for each decoded vendor event, before it is relayed: a returned string ends the stream
   * as a cap does (an error event to the client, the run logged with that reason, the vendor call
   * cancelled). With a guard, a piped stream decodes every event (a budget's guard counts the text
   * it streams); without one, once it has primed, only those that can carry its outcome.
   */
  guard?: (event: StreamEvent) => string | undefined;
  /** The vendor call's signal: aborted when the client leaves or its session is killed (see RequestScope), and by `abort`. */
  signal: AbortSignal;
  /** Time spent waiting for the vendor's next chunk or for the client to take the last: not Relay's overhead. */
  onWait(ms: number): void;
  /** Abort the vendor call (client went away, idle timeout). */
  abort(reason: unknown): void;
  /** Called once priming succeeded: the attempt has an answer (before onEnd, even for a whole answer). */
  onStart(): void;
  /** Called exactly once when the stream ends, however it ends; the stream closes after its promise. */
  onEnd(outcome: StreamOutcome): Promise<void>;
}

export type PrimeResult =
  /** `body`: the client stream, or the whole answer once onEnd's promise has settled. */
  | { ok: true; body: ReadableStream<Uint8Array> | Uint8Array | Blob | string }
  | { ok: false; error: IRError | undefined; reason: string; limited: boolean };

export class IdleTimeout extends Error {
  override name = "TimeoutError";
}

/** A stream Relay ended on one of its own limits (a cap, the duration limit, a guard); the message says which. */
export class StreamLimit extends Error {
  override name = "StreamLimit";
}
