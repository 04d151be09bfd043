// Relays a vendor stream to the client, either piping the vendor's bytes
// unchanged (same format) or translating event by event, with bounded memory:
// the client stream pulls, so Relay reads from the vendor only as fast as the
// client reads from Relay. The vendor stream is always decoded on the side to
// learn usage and stop reason for telemetry.
//
// The stream is "primed" before the client sees a byte: Relay reads until the
// vendor's first real event, so a vendor that fails at the start (an HTTP 200
// whose first event is an overload error, or a stream that ends empty) can
// still fall back to another model.
import type { Codec, StreamDecoder, StreamEncoder } from "../formats/types.ts";
import { NdjsonParser } from "../formats/ndjson.ts";
import { SseParser } from "../formats/sse.ts";
import { type IRError, type StopReason, type StreamEvent, type Usage, emptyUsage } from "../ir.ts";

export interface StreamOutcome {
  outcome: "ok" | "error" | "cancelled";
  usage: Usage;
  stopReason?: StopReason;
  /** Model the vendor reported. */
  model?: string;
  error?: string;
  /** ms from the start of relaying to the first byte handed to the client. */
  firstByteMs?: number;
}

export interface StreamRelayOptions {
  body: ReadableStream<Uint8Array>;
  vendor: Codec;
  client: Codec;
  /** Pipe vendor bytes unchanged instead of re-encoding. */
  passthrough: boolean;
  clientModel: string;
  includeUsage?: boolean;
  idleTimeoutMs: number;
  /** The request's own signal: aborted when the client leaves or its session is killed. */
  signal: AbortSignal;
  /** Abort the vendor call (client went away, idle timeout). */
  abort(reason: unknown): void;
  /** Called exactly once when the stream ends, however it ends; the stream closes after its promise. */
  onEnd(outcome: StreamOutcome): Promise<void>;
}

export type PrimeResult =
  | { ok: true; stream: ReadableStream<Uint8Array> }
  | { ok: false; error: IRError | undefined; reason: string };

export class IdleTimeout extends Error {
  override name = "TimeoutError";
}

const encoder = new TextEncoder();

export async function primeStream(opts: StreamRelayOptions): Promise<PrimeResult> {
  const reader = opts.body.getReader();
  const parser = opts.vendor.format === "ollama" ? new NdjsonParser() : new SseParser();
  const decoder: StreamDecoder = opts.vendor.streamDecoder();
  const clientEncoder: StreamEncoder | undefined = opts.passthrough
    ? undefined
    : opts.client.streamEncoder({ model: opts.clientModel, includeUsage: opts.includeUsage });
  const t0 = performance.now();
  let usage = emptyUsage();
  let stopReason: StopReason | undefined;
  let model: string | undefined;
  let vendorError: IRError | undefined;
  let meaningful = false;
  let ended = false;
  let finished = false;
  let firstByteMs: number | undefined;

  /** Decode raw events for telemetry and, when translating, encode them for the client. */
  const process = (events: StreamEvent[], out: string[]) => {
    for (const ev of events) {
      switch (ev.type) {
        case "start":
          model = ev.model || model;
          if (ev.usage) usage = { ...usage, ...ev.usage };
          break;
        case "finish":
          usage = ev.usage;
          stopReason = ev.stopReason;
          break;
        case "error":
          vendorError = ev.error;
          break;
        case "ping":
          break;
        default:
          meaningful = true;
      }
      if (clientEncoder) {
        const s = clientEncoder.encode(ev);
        if (s) out.push(s);
      }
    }
  };

  // Passthrough forwards vendor bytes only, so an error the decoder raises at the end of the
  // stream (the vendor stopped before its final event) has no bytes yet: closeOut must send one.
  let cutShort: string | undefined;
  // Once the client stream has started, a piped (same-format) stream is decoded
  // only where it can carry usage, a stop reason or an error: that is all the run log needs.
  let tapOnly = false;
  const feed = (chunk: Uint8Array | null, out: string[]) => {
    const raws = chunk ? parser.push(chunk) : parser.end();
    for (const raw of raws) if (!tapOnly || opts.vendor.carriesOutcome(raw)) process(decoder.push(raw), out);
    if (chunk) return;
    const closing = decoder.end();
    process(closing, out);
    if (opts.passthrough) for (const ev of closing) if (ev.type === "error") cutShort = ev.error.message;
  };

  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let idleReason: string | undefined;
  const read = async (): Promise<Awaited<ReturnType<typeof reader.read>>> => {
    idleTimer = setTimeout(() => {
      idleReason = `vendor stream idle for ${opts.idleTimeoutMs} ms`;
      opts.abort(new IdleTimeout(idleReason));
      reader.cancel(new IdleTimeout(idleReason)).catch(() => {});
    }, opts.idleTimeoutMs);
    try {
      return await reader.read();
    } finally {
      clearTimeout(idleTimer);
    }
  };

  const finish = (o: Omit<StreamOutcome, "usage" | "stopReason" | "model" | "firstByteMs">): Promise<void> => {
    if (finished) return Promise.resolve();
    finished = true;
    return opts.onEnd({ ...o, usage, stopReason, model, firstByteMs });
  };

  // ---- priming: read until the first meaningful event, an error, or the end ----
  const pending: Uint8Array[] = [];
  const pendingText: string[] = [];
  try {
    while (!meaningful && !vendorError && !ended) {
      const { done, value } = await read();
      if (done) {
        ended = true;
        feed(null, pendingText);
      } else {
        pending.push(value);
        feed(value, pendingText);
      }
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    return { ok: false, error: vendorError, reason: (e as Error)?.message ?? String(e) };
  }
  // A stream that finished without content (e.g. an Anthropic refusal) is a complete answer, not a
  // failed attempt (conformance: replay.test.ts, anthropic-refusal.chunks.txt).
  if (!meaningful && stopReason === undefined) {
    reader.cancel().catch(() => {});
    opts.abort(new Error("vendor stream failed before its first event"));
    return { ok: false, error: vendorError, reason: vendorError?.message ?? "vendor stream ended before any content" };
  }

  const errorFrame = (message: string) => {
    // A fresh encoder: the error frame must be well-formed whatever state the stream was in.
    const enc = opts.client.streamEncoder({ model: opts.clientModel });
    return enc.encode({ type: "error", error: { kind: "api_error", status: 502, message } }) + enc.end();
  };

  /** The vendor stream ended: close the client stream; one that stopped without its final event must not look complete. */
  const closeOut = async (controller: ReadableStreamDefaultController<Uint8Array>, text: string[]) => {
    const truncated = (!stopReason && !vendorError) || cutShort !== undefined;
    const reason = idleReason ?? cutShort ?? "vendor stream ended before completion";
    if (truncated) text.push(errorFrame(reason));
    else if (clientEncoder) text.push(clientEncoder.end());
    if (text.length) controller.enqueue(encoder.encode(text.join("")));
    // The run record is committed before the client sees the stream end.
    await finish({
      outcome: vendorError || truncated ? "error" : "ok",
      error: vendorError?.message ?? (truncated ? reason : undefined),
    });
    controller.close();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        firstByteMs = performance.now() - t0;
        tapOnly = opts.passthrough;
        if (opts.passthrough) for (const c of pending) controller.enqueue(c);
        else if (pendingText.length) controller.enqueue(encoder.encode(pendingText.join("")));
        if (ended) await closeOut(controller, []);
      },
      async pull(controller) {
        try {
          // Keep reading until there is something to send: a vendor chunk may translate to
          // nothing (e.g. OpenAI holds finish_reason until usage), and a pull that enqueues
          // nothing is never called again.
          for (;;) {
            const out: string[] = [];
            const { done, value } = await read();
            if (done) {
              feed(null, out);
              await closeOut(controller, opts.passthrough ? [] : out);
              return;
            }
            feed(value, out);
            if (opts.passthrough) {
              controller.enqueue(value);
              return;
            }
            if (out.length) {
              controller.enqueue(encoder.encode(out.join("")));
              return;
            }
          }
        } catch (e) {
          // Aborted by our own request signal (client gone, session killed): a cancellation,
          // not a vendor failure, so it must not count toward the provider's cooldown.
          const cancelled = opts.signal.aborted && idleReason === undefined;
          const message = cancelled
            ? `request cancelled: ${(opts.signal.reason as Error)?.message ?? "aborted"}`
            : e instanceof IdleTimeout
              ? e.message
              : `vendor stream failed: ${(e as Error)?.message ?? e}`;
          opts.abort(e);
          try {
            controller.enqueue(encoder.encode(errorFrame(message)));
          } catch {
            // client already gone
          }
          await finish({ outcome: cancelled ? "cancelled" : "error", error: message });
          try {
            controller.close();
          } catch {
            // client already gone
          }
        }
      },
      cancel(reason) {
        clearTimeout(idleTimer);
        reader.cancel(reason).catch(() => {});
        opts.abort(reason ?? new Error("client disconnected"));
        void finish({ outcome: "cancelled", error: "client disconnected" });
      },
    },
    // One chunk buffered ahead at most: back-pressure reaches the vendor socket.
    { highWaterMark: 1 },
  );
  return { ok: true, stream };
}
