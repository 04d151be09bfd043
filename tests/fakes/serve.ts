/**
 * Standalone fake vendor for benchmarks, run in its own process:
 *   bun tests/fakes/serve.ts --kind openai --port 0 --latency-ms 20 --chunks 20 [--chunk-delay-ms 5]
 * Prints `LISTENING <url>` once ready; exits on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { startFakeVendor } from "./vendor.ts";
import type { VendorKind } from "./types.ts";

const KINDS: readonly VendorKind[] = ["openai", "anthropic", "gemini", "ollama"];

const { values } = parseArgs({
  options: {
    kind: { type: "string", default: "openai" },
    port: { type: "string", default: "0" },
    "latency-ms": { type: "string", default: "0" },
    chunks: { type: "string", default: "3" },
    "chunk-delay-ms": { type: "string", default: "0" },
  },
});

const kind = values.kind as VendorKind;
if (!KINDS.includes(kind)) {
  console.error(`--kind must be one of ${KINDS.join(", ")}`);
  process.exit(2);
}

// Requests are not recorded: a long benchmark would otherwise grow memory without bound.
const vendor = await startFakeVendor(kind, { port: Number(values.port), recordRequests: false });
vendor.setDefault({
  text: `Hello from fake ${kind}. This reply is long enough to be split into several stream events.`,
  latencyMs: Number(values["latency-ms"]),
  textChunks: Number(values.chunks),
  chunkDelayMs: Number(values["chunk-delay-ms"]),
});
console.log(`LISTENING ${vendor.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void vendor.close().then(() => process.exit(0)));
}
