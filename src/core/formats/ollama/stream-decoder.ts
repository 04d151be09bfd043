// /api/chat NDJSON stream -> IR stream events. Each line has the response
// shape with a message fragment; the last has `done: true` and the counts.
// Tool calls arrive whole, and an `{"error": ...}` line can end the stream.
import type { StreamEvent } from "../../ir.ts";
import type { RawStreamEvent, StreamDecoder } from "../types.ts";
import { prefixedId } from "../../ids.ts";
import { CallIds } from "../shared/call-ids.ts";
import { isRecord, optString, parseJson } from "../shared/guards.ts";
import { decodeError } from "./errors.ts";
import { assistantBlocks } from "./message.ts";
import { BlockSequencer } from "../shared/block-sequencer.ts";
import { decodeDoneReason, decodeUsage } from "./response.ts";

export class OllamaStreamDecoder implements StreamDecoder {
  private started = false;
  private closed = false;
  private readonly blocks = new BlockSequencer();
  private readonly ids = new CallIds(() => prefixedId("call"));
  private madeToolCall = false;

  push(raw: RawStreamEvent): StreamEvent[] {
    if (this.closed) return [];
    const line = parseJson(raw.data, "stream line");
    if (!isRecord(line)) return [];
    if (line.error !== undefined) {
      this.closed = true;
      return [{ type: "error", error: decodeError(500, line) }];
    }
    const out: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      out.push({ type: "start", id: prefixedId("resp"), model: optString(line.model) ?? "" });
    }
    for (const block of assistantBlocks(isRecord(line.message) ? line.message : {}, this.ids)) {
      if (block.type === "text" || block.type === "thinking") {
        const index = this.blocks.ensure(block.type, out);
        out.push({ type: block.type === "text" ? "text_delta" : "thinking_delta", index, text: block.text });
      } else if (block.type === "tool_use") {
        this.blocks.whole({ type: "tool_use", id: block.id, name: block.name }, (index) => [{ type: "tool_args_delta", index, json: JSON.stringify(block.input) }], out);
        this.madeToolCall = true;
      }
    }
    if (line.done === true) {
      this.blocks.close(out);
      out.push({ type: "finish", stopReason: decodeDoneReason(line.done_reason, this.madeToolCall), usage: decodeUsage(line) });
      this.closed = true;
    }
    return out;
  }

  /**
   * A stream cut before its `done` line closes its blocks but ends with an error:
   * every complete Ollama stream ends with `done: true`, so without it the answer
   * was truncated and must not look finished.
   */
  end(): StreamEvent[] {
    if (this.closed || !this.started) return [];
    this.closed = true;
    const out: StreamEvent[] = [];
    this.blocks.close(out);
    out.push({ type: "error", error: { kind: "api_error", status: 502, message: "Ollama stream ended before its done line" } });
    return out;
  }
}
