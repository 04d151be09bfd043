// What a relayed stream's events say (stream-relay.ts): every vendor chunk is
// fed through the bounded parser and decoded on the side for the run log's
// usage, stop reason, model and vendor error, and, when translating, encoded
// for the client. A guard, given one, sees each decoded event first; its veto
// is thrown as a StreamLimit, which ends the stream as a passed cap does.
//
// Piped (same format), the client gets the vendor's bytes, so the decoding is
// only for the run log: once the stream has shown its first real event, only
// the events that can carry its outcome are decoded.
import type { RawStreamEvent, StreamDecoder, StreamEncoder } from "../formats/types.ts";
import { type IRError, type StopReason, type StreamEvent, emptyUsage } from "../ir.ts";
import type { BoundedParser } from "./bounded-parser.ts";
import { StreamLimit, type StreamRelayOptions } from "./stream-options.ts";

export class EventTap {
  usage = emptyUsage();
  stopReason: StopReason | undefined;
  /** Model the vendor reported. */
  model: string | undefined;
  vendorError: IRError | undefined;
  /** The stream has shown a real event (content, not only a start, a ping or its end). */
  meaningful = false;
  // Passthrough forwards vendor bytes only, so an error the decoder raises at the end of the
  // stream (the vendor stopped before its final event) has no bytes yet: the pump must send one.
  cutShort: string | undefined;
  private readonly decoder: StreamDecoder;
  /** Undefined when piping: the vendor's bytes go out as they are. */
  private readonly clientEncoder: StreamEncoder | undefined;

  constructor(
    private readonly opts: StreamRelayOptions,
    private readonly parser: BoundedParser,
  ) {
    this.decoder = opts.vendor.streamDecoder();
    this.clientEncoder = opts.passthrough ? undefined : opts.client.streamEncoder({ model: opts.clientModel, includeUsage: opts.includeUsage, tools: opts.tools });
  }

  /** Parse a vendor chunk (null: the end) for telemetry; returns the text for the client when translating. */
  feed(chunk: Uint8Array | null): string {
    const raws = this.parser.parse(chunk);
    let out = "";
    // Once a piped (same-format) stream has shown its first real event, it is decoded only where
    // it can carry usage, a stop reason or an error: that is all the run log needs. Checked per
    // event, not per read: a fast vendor's whole answer often arrives in the read that primes it.
    // A guard sees every event.
    for (const raw of raws) {
      if (this.opts.passthrough && this.meaningful && this.opts.guard === undefined && !this.opts.vendor.carriesOutcome(raw)) continue;
      out += this.process(this.decoder.push(raw), raw);
    }
    if (chunk) return out;
    const closing = this.decoder.end();
    out += this.process(closing);
    if (this.opts.passthrough) for (const ev of closing) if (ev.type === "error") this.cutShort = ev.error.message;
    return out;
  }

  /** The client's end of a translated stream that completed; nothing when piping. */
  clientEnd(): string {
    return this.clientEncoder ? this.clientEncoder.end() : "";
  }

  /** An error event and end in the client's format, from a fresh encoder: well-formed whatever state the stream was in. */
  errorFrame(message: string): string {
    const enc = this.opts.client.streamEncoder({ model: this.opts.clientModel });
    return enc.encode({ type: "error", error: { kind: "api_error", status: 502, message } }) + enc.end();
  }

  /** Note usage, stop reason, model and errors (of the vendor event `raw`); when translating, encode the events for the client. */
  private process(events: StreamEvent[], raw?: RawStreamEvent): string {
    let out = "";
    const guard = this.opts.guard;
    for (const ev of events) {
      if (guard) {
        const stop = guard(ev);
        if (stop !== undefined) throw new StreamLimit(stop);
      }
      switch (ev.type) {
        case "start":
          this.model = ev.model || this.model;
          if (ev.usage) this.usage = { ...this.usage, ...ev.usage };
          break;
        case "finish":
          this.usage = ev.usage;
          this.stopReason = ev.stopReason;
          break;
        case "error":
          this.vendorFailed(ev.error, raw);
          break;
        case "ping":
          break;
        default:
          this.meaningful = true;
      }
      if (this.clientEncoder) out += this.clientEncoder.encode(ev);
    }
    return out;
  }

  /** A vendor error, scrubbed. Piped, an event that echoes a secret in any field is swapped, while held, for the same error re-encoded. */
  private vendorFailed(error: IRError, raw: RawStreamEvent | undefined): void {
    this.vendorError = error;
    const scrubber = this.opts.scrubber;
    if (!scrubber) return;
    const vendorText = error.message;
    error.message = scrubber.scrub(vendorText);
    if (!this.opts.passthrough || raw === undefined) return;
    if (error.message !== vendorText || scrubber.scrub(raw.data) !== raw.data) {
      this.parser.unsent.replaceEvent(raw, this.opts.client.streamEncoder({ model: this.opts.clientModel }).encode({ type: "error", error }));
    }
  }
}
