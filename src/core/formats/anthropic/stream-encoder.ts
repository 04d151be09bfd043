// IR stream events → Anthropic SSE frames, shaped as Anthropic sends them so
// the official SDKs' stream accumulators accept them.
import { prefixedId } from "../../ids.ts";
import type { BlockStart, StreamEvent, Usage } from "../../ir.ts";
import { sseFrame } from "../sse.ts";
import type { StreamEncoder, StreamEncoderOptions } from "../types.ts";
import { encodeError } from "./error.ts";
import type { Json } from "./read.ts";
import { encodeStopReason, encodeUsage } from "./usage.ts";

const frame = (data: Json & { type: string }): string => sseFrame(JSON.stringify(data), data.type);

function contentBlock(b: BlockStart): Json {
  switch (b.type) {
    case "text":
      return { type: "text", text: "" };
    case "tool_use":
      return { type: "tool_use", id: b.id, name: b.name, input: {} };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: b.data };
  }
}

/** Anthropic's own shape, `msg_` + 32 hex characters (a UUID's length). */
const newMessageId = (): string => prefixedId("msg", 32);

export class AnthropicStreamEncoder implements StreamEncoder {
  private started = false;
  private readonly open = new Set<number>();

  constructor(private readonly opts: StreamEncoderOptions) {}

  encode(ev: StreamEvent): string {
    switch (ev.type) {
      case "start":
        return this.messageStart(ev.id, ev.usage);
      case "block_start":
        this.open.add(ev.index);
        return (
          this.messageStart() +
          frame({ type: "content_block_start", index: ev.index, content_block: contentBlock(ev.block) })
        );
      case "text_delta":
        return this.delta(ev.index, { type: "text_delta", text: ev.text });
      case "tool_args_delta":
        return this.delta(ev.index, { type: "input_json_delta", partial_json: ev.json });
      case "thinking_delta":
        return this.delta(ev.index, { type: "thinking_delta", thinking: ev.text });
      case "signature_delta":
        return this.delta(ev.index, { type: "signature_delta", signature: ev.signature });
      case "block_stop":
        return this.blockStop(ev.index);
      case "finish":
        return (
          this.messageStart() +
          // SDK accumulators expect every block closed before message_delta.
          [...this.open].map((index) => this.blockStop(index)).join("") +
          frame({
            type: "message_delta",
            delta: { stop_reason: encodeStopReason(ev.stopReason), stop_sequence: ev.stopSequence ?? null },
            usage: encodeUsage(ev.usage),
          }) +
          frame({ type: "message_stop" })
        );
      case "error":
        return frame({ type: "error", ...encodeError(ev.error) });
      case "ping":
        return frame({ type: "ping" });
    }
  }

  end(): string {
    return "";
  }

  /** The message_start frame, once; synthesized when the IR stream had no `start`. */
  private messageStart(id?: string, usage: Partial<Usage> = {}): string {
    if (this.started) return "";
    this.started = true;
    return frame({
      type: "message_start",
      message: {
        id: this.opts.id ?? id ?? newMessageId(),
        type: "message",
        role: "assistant",
        model: this.opts.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: encodeUsage({ ...usage, outputTokens: usage.outputTokens ?? 0 }),
      },
    });
  }

  private delta(index: number, delta: Json): string {
    return frame({ type: "content_block_delta", index, delta });
  }

  private blockStop(index: number): string {
    if (!this.open.delete(index)) return "";
    return frame({ type: "content_block_stop", index });
  }
}
