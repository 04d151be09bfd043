// Runtime seam: a response body whose producer writes straight into the
// server's socket sink, with no queue and no promise per chunk (Bun's "direct"
// ReadableStream). A port to another runtime implements the same two calls on
// a standard ReadableStream (enqueue, and await a pull while its queue is full).

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

export function sinkStream(source: SinkSource): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    type: "direct",
    pull: (controller) => source.pull(controller),
    cancel: (reason) => source.cancel(reason),
  });
}
