// Runtime seam: a response body whose producer writes straight into the
// server's socket sink, with no queue and no promise per chunk (Bun's "direct"
// ReadableStream). Elsewhere (Node, Deno) the same two calls run on a standard
// ReadableStream: a write enqueues, and waits for the reader's next pull while
// the queue is full, so back-pressure still reaches the producer.

export interface SinkWriter {
  /** Sends a chunk; a promise (to await before writing more) only while the sink is full. */
  write(chunk: Uint8Array | string): number | Promise<number>;
  close(): void;
}

export interface SinkSource {
  /** Called once, when the client starts reading: write everything, then close. */
  pull(writer: SinkWriter): Promise<void>;
  /** The client went away. */
  cancel(reason: unknown): void;
}

/** Write a chunk; a promise (to await) only when the sink is full, so that a chunk costs no extra tick. */
export function write(sink: SinkWriter, chunk: Uint8Array | string): Promise<number> | undefined {
  const written = chunk.length === 0 ? 0 : sink.write(chunk);
  return typeof written === "number" ? undefined : written;
}

// Detected once: the check is on every streamed response.
const hasDirectStreams = (globalThis as { Bun?: unknown }).Bun !== undefined;

export function sinkStream(source: SinkSource): ReadableStream<Uint8Array> {
  if (!hasDirectStreams) return standardSinkStream(source);
  return new ReadableStream<Uint8Array>({
    type: "direct",
    pull: (controller) => source.pull(controller),
    cancel: (reason) => source.cancel(reason),
  });
}

const encoder = new TextEncoder();

/**
 * The sink on a standard ReadableStream. Its high-water mark is 0, so that, as with Bun's, the
 * source starts only when the client first reads, and each write past what the client has asked
 * for waits for its next read.
 */
export function standardSinkStream(source: SinkSource): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let started = false;
  // Once the client cancelled or the source closed, writes go nowhere (enqueue would throw).
  let done = false;
  let wake: (() => void) | undefined;
  const resume = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const writer: SinkWriter = {
    write(chunk) {
      if (done) return 0;
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
      controller.enqueue(bytes);
      if ((controller.desiredSize ?? 0) > 0) return bytes.length;
      return new Promise<number>((resolve) => (wake = () => resolve(bytes.length)));
    },
    close() {
      if (done) return;
      done = true;
      controller.close();
    },
  };
  return new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      // Not returning the source's promise: the stream would call pull no more until it settled,
      // and a write waiting for the next pull would never be woken.
      pull() {
        if (started) return resume();
        started = true;
        source.pull(writer).catch((e: unknown) => {
          if (done) return;
          done = true;
          controller.error(e);
        });
      },
      cancel(reason) {
        done = true;
        source.cancel(reason);
        resume();
      },
    },
    { highWaterMark: 0 },
  );
}
