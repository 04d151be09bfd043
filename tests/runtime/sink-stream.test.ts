// The response sink on a standard ReadableStream: what the stream relay writes to on Node and Deno
// (Bun's own is a direct stream). The source starts at the client's first read, strings go out
// as bytes, a write past what the client asked for waits for its next read, and a client that
// cancels ends the source without a write throwing.
import { describe, expect, test } from "bun:test";
import { type SinkWriter, standardSinkStream, write } from "../../src/runtime/sink-stream.ts";

const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

describe("standardSinkStream", () => {
  test("the source starts at the first read; each write waits for the reader, in order, as bytes", async () => {
    let written = 0;
    let read = 0;
    let pulled = false;
    let ahead = 0;
    const stream = standardSinkStream({
      async pull(sink) {
        pulled = true;
        for (const chunk of ["one", new TextEncoder().encode("two"), "three"]) {
          const full = write(sink, chunk);
          written++;
          ahead = Math.max(ahead, written - read);
          if (full) await full;
        }
        sink.close();
      },
      cancel() {},
    });
    await Bun.sleep(5);
    expect(pulled).toBe(false);
    const reader = stream.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      expect(value).toBeInstanceOf(Uint8Array);
      chunks.push(text(value));
      read++;
      await Bun.sleep(5); // a slow client: the source must not run ahead of it
    }
    expect(chunks).toEqual(["one", "two", "three"]);
    expect(ahead).toBe(1);
  });

  test("a client that cancels wakes the waiting write and ends the source; later writes go nowhere", async () => {
    let sink!: SinkWriter;
    let waiting!: Promise<number> | undefined;
    let cancelled: unknown;
    const stream = standardSinkStream({
      async pull(s) {
        sink = s;
        waiting = write(s, "first");
      },
      cancel: (reason) => void (cancelled = reason),
    });
    const reader = stream.getReader();
    expect(text((await reader.read()).value)).toBe("first");
    expect(waiting).toBeInstanceOf(Promise);
    await reader.cancel("gone");
    expect(cancelled).toBe("gone");
    expect(await waiting).toBe(5);
    expect(sink.write("late")).toBe(0);
    expect(() => sink.close()).not.toThrow();
  });

  test("a source that fails errors the stream", async () => {
    const stream = standardSinkStream({
      pull: () => Promise.reject(new Error("vendor reset")),
      cancel() {},
    });
    await expect(stream.getReader().read()).rejects.toThrow("vendor reset");
  });
});
