// The SSE frames the load bench's fake vendor streams (tests/fakes/serve.ts started with
// --chunks 20 answers with this reply), for the benches that run the relay in process.
import { anthropic } from "../../tests/fakes/render/anthropic.ts";
import { openai } from "../../tests/fakes/render/openai.ts";

/** Text chunks per streamed answer (issue 5 measures 20-chunk streams). */
export const STREAM_CHUNKS = 20;

/** One string per SSE event, as the vendor writes them. */
export function vendorFrames(kind: "openai" | "anthropic", model: string): string[] {
  const dialect = kind === "anthropic" ? anthropic : openai;
  const reply = { text: `Hello from fake ${kind}. This reply is long enough to be split into several stream events.`, textChunks: STREAM_CHUNKS };
  const call = { model, stream: true, includeUsage: true, sse: true };
  return dialect.frame(dialect.events(reply, call), call);
}
