// Shared by the Responses codec tests: recordings split into their responses, SSE replay through
// the codec, and an assembler that checks the IR stream's block discipline while rebuilding the
// response it describes (signatures included, which reasoning items carry).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ContentBlock, IRError, StopReason, StreamEvent, Usage } from "../../src/core/ir.ts";
import { responsesCodec } from "../../src/core/formats/responses/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import type { RawStreamEvent } from "../../src/core/formats/types.ts";
import { recordingsDir } from "../fakes/fixtures.ts";

export const readRecording = (rel: string): string => readFileSync(path.join(recordingsDir(), rel), "utf8");

/**
 * A `*.chunks.txt` recording as the raw events of each response it holds: some recordings hold
 * several turns, each beginning with `response.created`.
 */
export function recordedStreams(rel: string): RawStreamEvent[][] {
  const streams: RawStreamEvent[][] = [];
  for (const line of readRecording(rel).split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith('{"type":"response.created"') || streams.length === 0) streams.push([]);
    streams[streams.length - 1]!.push({ data: line });
  }
  return streams;
}

export function decodeRaw(raws: RawStreamEvent[]): StreamEvent[] {
  const decoder = responsesCodec.streamDecoder();
  return [...raws.flatMap((r) => decoder.push(r)), ...decoder.end()];
}

/** SSE text → the codec's IR events, through the real SSE parser. */
export function decodeSse(sse: string): StreamEvent[] {
  const parser = new SseParser();
  return decodeRaw([...parser.push(sse), ...parser.end()]);
}

export function encodeEvents(events: StreamEvent[], model = "gpt-test"): string {
  const encoder = responsesCodec.streamEncoder({ model });
  return events.map((e) => encoder.encode(e)).join("") + encoder.end();
}

/** The JSON payloads of SSE text, each with the name its `event:` line gave. */
export function sseEvents(sse: string): Array<{ event?: string; data: Record<string, unknown> }> {
  const parser = new SseParser();
  return [...parser.push(sse), ...parser.end()].map((r) => ({ event: r.event, data: JSON.parse(r.data) }));
}

export interface Assembled {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason?: StopReason;
  usage?: Usage;
  error?: IRError;
}

type Building = { type: "text" | "thinking"; text: string; signature?: string } | { type: "tool_use"; id: string; name: string; json: string };

/**
 * Rebuilds the response from IR events, throwing on a broken rule: `start` first, blocks numbered
 * 0,1,2… in opening order, deltas only into an open block of their kind, every block closed, and
 * one `finish` or `error`, last.
 */
export function assemble(events: StreamEvent[]): Assembled {
  const first = events[0];
  if (first?.type !== "start") throw new Error(`first event is ${first?.type}, not start`);
  const blocks: Building[] = [];
  const open = new Set<number>();
  let end: StreamEvent | undefined;
  const target = (index: number, type: Building["type"]): Building => {
    const b = blocks[index];
    if (!open.has(index) || b?.type !== type) throw new Error(`${type} delta into block ${index} which is not an open ${type} block`);
    return b;
  };
  for (const ev of events.slice(1)) {
    if (end) throw new Error(`${ev.type} after ${end.type}`);
    switch (ev.type) {
      case "block_start":
        if (ev.index !== blocks.length) throw new Error(`block ${ev.index} opened, expected ${blocks.length}`);
        if (ev.block.type === "redacted_thinking") throw new Error("Responses streams carry no redacted thinking");
        open.add(ev.index);
        blocks.push(ev.block.type === "tool_use" ? { type: "tool_use", id: ev.block.id, name: ev.block.name, json: "" } : { type: ev.block.type, text: "" });
        break;
      case "text_delta":
        (target(ev.index, "text") as { text: string }).text += ev.text;
        break;
      case "thinking_delta":
        (target(ev.index, "thinking") as { text: string }).text += ev.text;
        break;
      case "signature_delta": {
        const b = target(ev.index, "thinking") as { signature?: string };
        b.signature = (b.signature ?? "") + ev.signature;
        break;
      }
      case "tool_args_delta":
        (target(ev.index, "tool_use") as { json: string }).json += ev.json;
        break;
      case "block_stop":
        if (!open.delete(ev.index)) throw new Error(`block ${ev.index} closed but not open`);
        break;
      case "finish":
      case "error":
        if (open.size > 0) throw new Error(`${ev.type} with blocks ${[...open]} still open`);
        end = ev;
        break;
      case "start":
        throw new Error("a second start event");
    }
  }
  if (!end) throw new Error("stream has neither finish nor error");
  const content = blocks.map((b): ContentBlock => {
    if (b.type === "tool_use") return { type: "tool_use", id: b.id, name: b.name, input: JSON.parse(b.json || "{}") };
    if (b.type === "thinking") return b.signature ? { type: "thinking", text: b.text, signature: b.signature } : { type: "thinking", text: b.text };
    return { type: "text", text: b.text };
  });
  const base = { id: first.id, model: first.model, content };
  return end.type === "finish" ? { ...base, stopReason: end.stopReason, usage: end.usage } : { ...base, error: (end as { error: IRError }).error };
}
