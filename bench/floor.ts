// The floor for any gateway on this runtime: a bare forward proxy that adds one
// HTTP hop and nothing else — no parsing, no logging, the vendor's Response
// (streamed bodies included) returned as-is. Run in its own process:
//   bun bench/floor.ts --upstream http://127.0.0.1:PORT [--port 0]
// Prints `LISTENING <url>` once ready; exits on SIGINT/SIGTERM.
// --tap: the least a gateway that reads a stream must do (bench/pump.ts): a streamed
// answer is read in JavaScript, decoded to text, and written to a direct response
// stream instead of being piped natively.
//   bun bench/floor.ts --upstream http://127.0.0.1:PORT --tap
import { parseArgs } from "node:util";
import { sinkStream } from "../src/runtime/sink-stream.ts";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    port: { type: "string", default: "0" },
    tap: { type: "boolean", default: false },
  },
});
if (!values.upstream) {
  console.error("--upstream <origin> is required");
  process.exit(2);
}
const upstream = new URL(values.upstream).origin;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  // Long streams (the 1,000-open-streams case) must not be cut by the idle timer.
  idleTimeout: 255,
  async fetch(request) {
    const { pathname, search } = new URL(request.url);
    const res = await fetch(upstream + pathname + search, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      // Byte-transparent: what the vendor sent is what the client gets.
      decompress: false,
    });
    return values.tap && res.body && res.headers.get("content-type")?.startsWith("text/event-stream") ? tapped(res, res.body) : res;
  },
});

function tapped(res: Response, body: ReadableStream<Uint8Array>): Response {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // Relay's own response sink (src/runtime/sink-stream.ts), so the tap costs what Relay's pump costs.
  const stream = sinkStream({
    async pull(sink) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        decoder.decode(value, { stream: true });
        const full = sink.write(value);
        if (typeof full !== "number") await full;
      }
      sink.close();
    },
    cancel: (reason) => void reader.cancel(reason).catch(() => {}),
  });
  return new Response(stream, { status: res.status, headers: res.headers });
}

console.log(`LISTENING ${server.url.href.replace(/\/$/, "")}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void server.stop(true).then(() => process.exit(0)));
}
