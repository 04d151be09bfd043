/**
 * Delivers a Plan over HTTP: latency, per-event pacing, and the transport
 * faults (reset, stop, hang, never answer). Every response that is not sent in
 * one go is a pull-based ReadableStream, so clients see real streaming and
 * back-pressure.
 */
import type { Fault, Reply } from "./types.ts";
import type { Plan } from "./plan.ts";

/** Counts responses in flight, for leak checks. */
export class InFlight {
  private count = 0;

  get open(): number {
    return this.count;
  }

  /** Marks one response open; the returned function closes it (idempotent). */
  begin(): () => void {
    this.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count--;
    };
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** The leading part of the wire pieces sent before a fault strikes: about half the events, or half the body. */
function leadingPart(pieces: string[]): string[] {
  if (pieces.length > 1) return pieces.slice(0, Math.min(pieces.length - 1, Math.ceil(pieces.length / 2)));
  const only = pieces[0] ?? "";
  return [only.slice(0, Math.floor(only.length / 2))];
}

type Ending = "close" | "reset" | "hang";

const RESET_GRACE_MS = 50;

const TRUNCATING: Partial<Record<Fault, Ending>> = {
  "stop-mid-stream": "close",
  "reset-mid-body": "reset",
  "never-end": "hang",
};

export async function deliver(plan: Plan, reply: Reply, signal: AbortSignal, inFlight: InFlight): Promise<Response> {
  const finish = inFlight.begin();
  if (reply.fault === "never-answer") {
    await untilAborted(signal);
    finish();
    // The client is gone; this response is never sent.
    return new Response(null, { status: 499 });
  }
  await pause(reply.latencyMs ?? 0, signal);

  const ending = reply.fault ? TRUNCATING[reply.fault] : undefined;
  const pieces = ending ? leadingPart(plan.pieces) : plan.pieces;
  if (!ending && pieces.length === 1) {
    finish();
    return new Response(pieces[0], { status: plan.status, headers: plan.headers });
  }
  return new Response(streamOf(pieces, ending ?? "close", reply.chunkDelayMs ?? 0, signal, finish), {
    status: plan.status,
    headers: plan.headers,
  });
}

function streamOf(pieces: string[], ending: Ending, delayMs: number, signal: AbortSignal, finish: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (next > 0) await pause(delayMs, signal);
        if (signal.aborted) {
          finish();
          return;
        }
        if (next < pieces.length) {
          controller.enqueue(encoder.encode(pieces[next++]));
          return;
        }
        if (ending === "hang") {
          await untilAborted(signal);
        } else if (ending === "reset") {
          // Let the headers and leading bytes reach the client first: a reset also discards unread data.
          await pause(RESET_GRACE_MS, signal);
          // Erroring with no reason makes Bun drop the socket mid-body (the client sees ECONNRESET) without logging.
          controller.error(undefined);
        } else {
          controller.close();
        }
        finish();
      },
      cancel() {
        finish();
      },
    },
    // One event per pull: the producer waits for the client to read.
    { highWaterMark: 0 },
  );
}
