// Shared by the OpenAI codec tests: fixture loading, SSE replay, and an
// assembler that checks the IR stream's block discipline while rebuilding the
// response it describes.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ContentBlock, StopReason, StreamEvent, Usage } from "../../src/core/ir.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import type { StreamEncoderOptions } from "../../src/core/formats/types.ts";
import { recordingsDir } from "../fakes/fixtures.ts";


export const readRecording = (rel: string): string => readFileSync(path.join(recordingsDir(), rel), "utf8");

/** A `*.chunks.txt` recording framed as the vendor sent it: `data: <json>` events, then `[DONE]`. */
export function recordedSse(rel: string): string {
  const lines = readRecording(rel).split("\n").filter((l) => l.trim() !== "");
  return lines.map((l) => `data: ${l}\n\n`).join("") + "data: [DONE]\n\n";
}

/** Chunk payloads (as objects) to SSE text, for hand-written streams. */
export const sseOf = (chunks: unknown[]): string =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";

/** Runs SSE text through the SSE parser and the OpenAI stream decoder. */
export function decodeSse(sse: string): StreamEvent[] {
  const parser = new SseParser();
  const decoder = openaiCodec.streamDecoder();
  const raw = [...parser.push(sse), ...parser.end()];
  return [...raw.flatMap((r) => decoder.push(r)), ...decoder.end()];
}

export function encodeEvents(events: StreamEvent[], opts: StreamEncoderOptions): string {
  const encoder = openaiCodec.streamEncoder(opts);
  return events.map((e) => encoder.encode(e)).join("") + encoder.end();
}

export interface Assembled {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
}

type Building =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "tool_use"; id: string; name: string; json: string };

/**
 * Rebuilds the response from IR stream events, throwing on any broken rule:
 * `start` first, blocks numbered 0,1,2… in opening order, deltas only into an
 * open block of their kind, every block closed, exactly one `finish`, last.
 */
export function assemble(events: StreamEvent[]): Assembled {
  const first = events[0];
  if (first?.type !== "start") throw new Error(`first event is ${first?.type}, not start`);
  const blocks: Building[] = [];
  const open = new Set<number>();
  let finish: Extract<StreamEvent, { type: "finish" }> | undefined;
  const target = (index: number, type: Building["type"]): Building => {
    const b = blocks[index];
    if (!open.has(index) || b.type !== type) throw new Error(`${type} delta into block ${index} which is not an open ${type} block`);
    return b;
  };
  for (const ev of events.slice(1)) {
    if (finish) throw new Error(`${ev.type} after finish`);
    switch (ev.type) {
      case "block_start": {
        const b = ev.block;
        if (ev.index !== blocks.length) throw new Error(`block ${ev.index} opened, expected ${blocks.length}`);
        if (b.type === "redacted_thinking") throw new Error("OpenAI streams carry no redacted thinking");
        open.add(ev.index);
        blocks.push(b.type === "tool_use" ? { type: "tool_use", id: b.id, name: b.name, json: "" } : { type: b.type, text: "" });
        break;
      }
      case "text_delta":
        (target(ev.index, "text") as { text: string }).text += ev.text;
        break;
      case "thinking_delta":
        (target(ev.index, "thinking") as { text: string }).text += ev.text;
        break;
      case "tool_args_delta":
        (target(ev.index, "tool_use") as { json: string }).json += ev.json;
        break;
      case "block_stop":
        if (!open.delete(ev.index)) throw new Error(`block ${ev.index} closed but not open`);
        break;
      case "finish":
        if (open.size > 0) throw new Error(`finish with blocks ${[...open]} still open`);
        finish = ev;
        break;
      case "start":
      case "error":
        throw new Error(`unexpected ${ev.type} event`);
    }
  }
  if (!finish) throw new Error("stream has no finish event");
  return {
    id: first.id,
    model: first.model,
    content: blocks.map((b): ContentBlock =>
      b.type === "tool_use" ? { type: "tool_use", id: b.id, name: b.name, input: JSON.parse(b.json || "{}") } : b,
    ),
    stopReason: finish.stopReason,
    usage: finish.usage,
  };
}
