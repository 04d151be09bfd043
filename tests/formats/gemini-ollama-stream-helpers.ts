// Test helpers shared by the Gemini and Ollama codec tests: fixture access and
// folding IR stream events back into a response for assertions.
import path from "node:path";
import { readFileSync } from "node:fs";
import type { ContentBlock, StopReason, StreamEvent, Usage } from "../../src/core/ir.ts";
import type { StreamDecoder } from "../../src/core/formats/types.ts";
import { recordingsDir } from "../fakes/fixtures.ts";

export const googleFixtures = path.join(recordingsDir(), "google");

export const readFixture = (name: string): string => readFileSync(path.join(googleFixtures, name), "utf8");

/** The `data:` payloads of a `*.chunks.txt` recording, one per line. */
export const fixtureChunks = (name: string): string[] =>
  readFixture(name)
    .split("\n")
    .filter((l) => l.trim() !== "");

export function decodeAll(decoder: StreamDecoder, payloads: string[]): StreamEvent[] {
  return [...payloads.flatMap((data) => decoder.push({ data })), ...decoder.end()];
}

export interface Collected {
  id?: string;
  model?: string;
  content: ContentBlock[];
  stopReason?: StopReason;
  usage?: Usage;
  errors: string[];
}

/** Folds block-structured stream events into content blocks, checking the event grammar on the way. */
export function collect(events: StreamEvent[]): Collected {
  const out: Collected = { content: [], errors: [] };
  const args = new Map<number, string>();
  const open = new Set<number>();
  for (const ev of events) {
    switch (ev.type) {
      case "start":
        out.id = ev.id;
        out.model = ev.model;
        break;
      case "block_start": {
        if (ev.index !== out.content.length) throw new Error(`block ${ev.index} opened out of order`);
        open.add(ev.index);
        const b = ev.block;
        if (b.type === "text") out.content.push({ type: "text", text: "" });
        else if (b.type === "thinking") out.content.push({ type: "thinking", text: "" });
        else if (b.type === "tool_use") {
          out.content.push({ type: "tool_use", id: b.id, name: b.name, input: {} });
          args.set(ev.index, "");
        } else out.content.push({ type: "redacted_thinking", data: b.data });
        break;
      }
      case "text_delta":
      case "thinking_delta": {
        if (!open.has(ev.index)) throw new Error(`delta for closed block ${ev.index}`);
        const block = out.content[ev.index];
        if (block.type === "text" || block.type === "thinking") block.text += ev.text;
        break;
      }
      case "signature_delta": {
        const block = out.content[ev.index];
        if (block.type === "thinking") block.signature = (block.signature ?? "") + ev.signature;
        break;
      }
      case "tool_args_delta":
        args.set(ev.index, (args.get(ev.index) ?? "") + ev.json);
        break;
      case "block_stop": {
        if (!open.delete(ev.index)) throw new Error(`block ${ev.index} closed twice`);
        const block = out.content[ev.index];
        if (block.type === "tool_use") block.input = JSON.parse(args.get(ev.index) || "{}");
        break;
      }
      case "finish":
        if (open.size > 0) throw new Error("finish with open blocks");
        out.stopReason = ev.stopReason;
        out.usage = ev.usage;
        break;
      case "error":
        out.errors.push(ev.error.message);
        break;
      case "ping":
        break;
    }
  }
  return out;
}
