// The floor for any gateway on this runtime: a bare forward proxy that adds one
// HTTP hop and nothing else — no parsing, no logging, the vendor's Response
// (streamed bodies included) returned as-is. Run in its own process:
//   bun bench/floor.ts --upstream http://127.0.0.1:PORT [--port 0]
// Prints `LISTENING <url>` once ready; exits on SIGINT/SIGTERM.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    port: { type: "string", default: "0" },
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
    // Awaited, as in every earlier pass: a change to the floor would move every ratio.
    return await fetch(upstream + pathname + search, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      // Byte-transparent: what the vendor sent is what the client gets.
      decompress: false,
    });
  },
});

console.log(`LISTENING ${server.url.href.replace(/\/$/, "")}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void server.stop(true).then(() => process.exit(0)));
}
