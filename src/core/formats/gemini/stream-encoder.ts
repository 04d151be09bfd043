// IR stream events -> Gemini SSE chunks (`data: {GenerateContentResponse}`).
// Gemini has no partial tool calls on its public API, so a call is sent whole
// when its block closes; usage and finishReason ride on the final chunk.
import type { BlockStart, StreamEvent } from "../../ir.ts";
import { sseFrame } from "../sse.ts";
import type { StreamEncoder, StreamEncoderOptions } from "../types.ts";
import { encodeError } from "./errors.ts";
import { encodeFinishReason } from "./finish.ts";
import { parseArgsObject, type JsonObject } from "../shared/guards.ts";
import { encodeUsage } from "./usage.ts";

interface OpenBlock {
  block: BlockStart;
  args: string;
  hasText: boolean;
}

export class GeminiStreamEncoder implements StreamEncoder {
  private id: string;
  private readonly blocks = new Map<number, OpenBlock>();
  /** Signature of a text-less thinking block, owed to the next part (see parts.ts). */
  private signature: string | undefined;

  constructor(private readonly opts: StreamEncoderOptions) {
    this.id = opts.id ?? "";
  }

  encode(ev: StreamEvent): string {
    switch (ev.type) {
      case "start":
        if (!this.id) this.id = ev.id;
        return "";
      case "block_start":
        this.blocks.set(ev.index, { block: ev.block, args: "", hasText: false });
        return "";
      case "text_delta":
        return ev.text ? this.chunk([{ text: ev.text }]) : "";
      case "thinking_delta": {
        const open = this.blocks.get(ev.index);
        if (open) open.hasText = true;
        return ev.text ? this.chunk([{ text: ev.text, thought: true }]) : "";
      }
      case "signature_delta":
        if (this.blocks.get(ev.index)?.hasText) {
          return this.chunk([{ text: "", thought: true, thoughtSignature: ev.signature }]);
        }
        this.signature = ev.signature;
        return "";
      case "tool_args_delta": {
        const open = this.blocks.get(ev.index);
        if (open) open.args += ev.json;
        return "";
      }
      case "block_stop":
        return this.closeBlock(ev.index);
      case "finish":
        return this.chunk([{ text: "" }], {
          finishReason: encodeFinishReason(ev.stopReason),
          usageMetadata: encodeUsage(ev.usage),
        });
      case "error":
        return sseFrame(JSON.stringify(encodeError(ev.error)));
      case "ping":
        return "";
    }
  }

  end(): string {
    return "";
  }

  private closeBlock(index: number): string {
    const open = this.blocks.get(index);
    this.blocks.delete(index);
    if (open?.block.type !== "tool_use") return "";
    return this.chunk([{ functionCall: { name: open.block.name, args: parseArgsObject(open.args) } }]);
  }

  private chunk(parts: JsonObject[], final?: { finishReason: string; usageMetadata: JsonObject }): string {
    if (this.signature) {
      parts[0] = { ...parts[0], thoughtSignature: this.signature };
      this.signature = undefined;
    }
    const candidate = { content: { role: "model", parts }, index: 0, ...(final && { finishReason: final.finishReason }) };
    return sseFrame(
      JSON.stringify({
        candidates: [candidate],
        ...(final && { usageMetadata: final.usageMetadata }),
        modelVersion: this.opts.model,
        responseId: this.id,
      }),
    );
  }
}
